//! The shape of the functions the mock answers from a profile's values, as the generated
//! tables (`generated/tables/`) describe them: the object each is called on, its selectors
//! and its outputs with their types. Plain types, at the bottom of the mock's layers.

/// The kind of object a function is called on: its first parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    System,
    Device,
    Unit,
    GpuInstance,
    ComputeInstance,
    VgpuType,
    VgpuInstance,
}

/// A value type of the header, as a profile writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum T {
    /// An integer: a number, or the name of an integer constant of the header.
    Int { signed: bool, bits: u32 },
    /// A `float` or `double` (no function answered from data has one at present).
    #[allow(dead_code)]
    Float,
    /// An enum (the model's name): one of its constants by name, or a number.
    Enum(&'static str),
    /// A bit mask: constants by name (a list of them is OR-ed), or a number.
    Flags,
    /// `char[n]`: a string shorter than `n` bytes.
    Chars(usize),
    /// An output string buffer.
    Str,
    /// `elem[n]`: a list of at most `n` values (the rest are zero).
    Array(&'static T, usize),
    /// A record: its fields by name (absent ones are zero).
    Record(&'static str),
    /// A union: a mapping with one of its members.
    Union(&'static str),
}

#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: T,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One value through a pointer (or a string buffer).
    Value,
    /// NVML's count + array: a list.
    List,
}

#[derive(Debug)]
pub struct Output {
    pub name: &'static str,
    pub ty: T,
    pub shape: Shape,
}

/// A function the mock answers from data.
#[derive(Debug)]
pub struct FunctionSchema {
    pub name: &'static str,
    pub object: ObjectKind,
    /// Inputs by value that select the answer, in parameter order, then the input fields of
    /// its in/out records.
    pub selectors: &'static [Field],
    /// How many of the last `selectors` are input fields of in/out records: a profile may leave
    /// them out (one value for every input).
    pub record_inputs: usize,
    pub outputs: &'static [Output],
    /// Other members of its versioned family answered from data: when a profile names none
    /// of the function itself, it answers from theirs (records converted field by field).
    pub family: &'static [&'static str],
}

#[derive(Debug)]
pub struct RecordSchema {
    pub name: &'static str,
    pub union: bool,
    pub fields: &'static [Field],
}
