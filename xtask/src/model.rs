//! The plain-data model of `nvml.h`: what the clang stage produces and every later stage reads.
//!
//! Nothing here refers to libclang. Every collection is a `BTreeMap` keyed by the C name, so
//! iteration (and therefore generated output) is in name order by construction.

use std::collections::BTreeMap;

use serde::Serialize;

pub mod keep;
mod queries;

pub use queries::{constant_value, derive_families, enum_or_constant_value, union_of, version_of};

/// Everything the generator knows about one header.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Model {
    pub header: HeaderInfo,
    /// The copyright notice the header opens with, if any: its terms ask that software using
    /// the header carry its disclaimer in the comments of the code, so generated files do.
    pub notice: Option<String>,
    /// Every function prototype, the legacy (`NVML_NO_UNVERSIONED_FUNC_DEFS`) block included.
    pub functions: BTreeMap<String, Function>,
    /// Structs and unions, named by their tag or, when anonymous, their typedef (nested
    /// anonymous records get `Parent_field` names).
    pub records: BTreeMap<String, Record>,
    /// Enums, named like records.
    pub enums: BTreeMap<String, Enum>,
    /// Integer, float and string `#define`s.
    pub constants: BTreeMap<String, Constant>,
    /// `typedef struct x_st *x_t;` where `x_st` is never defined.
    pub handles: BTreeMap<String, Handle>,
    /// Every other typedef: scalars, and aliases of records and enums.
    pub typedefs: BTreeMap<String, Typedef>,
    /// `#define nvmlX nvmlX_vN` and friends: the header's own "current version" table.
    pub aliases: BTreeMap<String, Alias>,
    /// The header's Doxygen groups (`@defgroup`, `@addtogroup`), in the order they open.
    pub groups: Vec<Group>,
    /// Functions and constants the header lacks that the header of the last release declared,
    /// kept from it (deprecated; see [`keep`]), in name order.
    pub kept: Vec<String>,
}

/// A span of the header inside one Doxygen group: `@defgroup name Title` (or `@addtogroup
/// name`) up to its closing `@}`. A group reopened by `@addtogroup` has a span per opening.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    pub name: String,
    /// The title `@defgroup` gives it, or the name when no opening gives one.
    pub title: String,
    /// 1-based lines of its `@{` and `@}`.
    pub first_line: u32,
    pub last_line: u32,
}

/// Identity of the parsed header.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HeaderInfo {
    /// Release version, e.g. `13.5.37`, or the file name for a header outside `nvml-headers/`.
    pub version: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Function {
    pub name: String,
    pub ret: Ty,
    pub params: Vec<Param>,
    /// The documentation comment as written (markers stripped, Doxygen kept).
    pub doc: Option<String>,
    /// The same documentation, parsed once: what each parameter is and what each return code
    /// means.
    pub docs: FunctionDoc,
    pub deprecated: bool,
    /// Declared only inside `#ifdef NVML_NO_UNVERSIONED_FUNC_DEFS`.
    pub legacy: bool,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
}

/// A function's Doxygen comment, parsed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FunctionDoc {
    /// Each `@param` (`\param`), by parameter name.
    pub params: BTreeMap<String, ParamDoc>,
    /// The `@return` list, in order.
    pub returns: Vec<ReturnDoc>,
    /// Parameters a sentence of the comment allows to be NULL (`\a infos is allowed to be
    /// NULL`, `Set to 0 to query the size without allocating an \a addresses buffer`).
    pub allows_null: Vec<String>,
    /// The `@deprecated` text (continuation lines joined), if the comment has one.
    pub deprecated: Option<String>,
}

/// What the documentation says of one parameter.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParamDoc {
    /// `@param[in]`, `@param[out]` or `@param[in,out]`.
    pub direction: Option<DocDirection>,
    /// The description, continuation lines joined with single spaces.
    pub text: String,
    /// The unit the description names (`in bytes`, `in MHz`, `in milliwatts`...), as written
    /// after `in`, lowercased.
    pub unit: Option<String>,
}

/// A direction written in the documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DocDirection {
    In,
    Out,
    InOut,
}

/// One item of a `@return` list: `- \ref NVML_ERROR_X if ...`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReturnDoc {
    /// The return code's constant, e.g. `NVML_ERROR_INVALID_ARGUMENT`.
    pub code: String,
    /// When it is returned, as written (continuation lines joined).
    pub when: String,
    /// The parameters the condition names with `\a name`.
    pub params: Vec<String>,
}

impl FunctionDoc {
    /// The function the `@deprecated` text names first (`Use \ref nvmlX instead`).
    pub fn replacement(&self) -> Option<&str> {
        let text = self.deprecated.as_deref()?;
        let i = text.find("\\ref ")? + "\\ref ".len();
        let name = &text[i..];
        let end = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(name.len());
        name[..end].starts_with("nvml").then_some(&name[..end])
    }

    /// The documentation of parameter `name`, if it has any.
    pub fn param(&self, name: &str) -> Option<&ParamDoc> {
        self.params.get(name)
    }

    /// Whether the documentation refuses `param` as NULL (so a NULL size probe of it fails):
    /// an `NVML_ERROR_INVALID_ARGUMENT` item names it and says `NULL`, and no sentence allows it
    /// (the comments of the process lists do both; the sentence about the probe wins).
    pub fn refuses_null(&self, param: &str) -> bool {
        // `NULL`, not `non-NULL`, and not "NULL with a non-zero count" (the size probe, a
        // NULL array with a zero count, is then what the header asks for).
        let says_null = |w: &str| {
            w.match_indices("NULL").any(|(i, _)| {
                let rest = w[i + 4..].trim_start().to_ascii_lowercase();
                !w[..i].to_ascii_lowercase().ends_with("non-")
                    && !rest.starts_with("with a non-zero")
                    && !rest.starts_with("with non-zero")
            })
        };
        let refused = self.returns.iter().any(|r| {
            r.code == "NVML_ERROR_INVALID_ARGUMENT" && says_null(&r.when) && r.params.iter().any(|p| p == param)
        });
        refused && !self.allows_null.iter().any(|p| p == param)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RecordKind {
    Struct,
    Union,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub name: String,
    pub kind: RecordKind,
    /// The C tag (`struct nvmlPciInfo_st`), if it has one.
    pub tag: Option<String>,
    pub size: u64,
    pub align: u64,
    pub fields: Vec<Field>,
    pub doc: Option<String>,
    /// For a nested anonymous record: the record it is declared in.
    pub parent: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The C name; `anonN` for an unnamed struct or union member.
    pub name: String,
    pub ty: Ty,
    /// Byte offset within the record.
    pub offset: u64,
    /// Set for bit-fields (then `offset` is the bit offset).
    pub bit_width: Option<u32>,
    pub doc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Enum {
    pub name: String,
    pub tag: Option<String>,
    /// The integer type clang chose (`UInt` for NVML's enums, `Int` when a value is negative).
    pub repr: Ty,
    /// In declaration order; duplicates and values above `INT_MAX` are kept as written.
    pub constants: Vec<EnumConstant>,
    pub doc: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumConstant {
    pub name: String,
    pub value: IntValue,
    pub doc: Option<String>,
}

/// An integer that keeps its signedness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum IntValue {
    Signed(i64),
    Unsigned(u64),
}

impl IntValue {
    pub fn as_i128(self) -> i128 {
        match self {
            IntValue::Signed(v) => v as i128,
            IntValue::Unsigned(v) => v as i128,
        }
    }
}

impl std::fmt::Display for IntValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.as_i128())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Constant {
    pub name: String,
    pub value: ConstValue,
    pub doc: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ConstValue {
    /// An integer and the C type clang gave the expression.
    Int {
        value: IntValue,
        ty: Ty,
    },
    Float(f64),
    Str(String),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Handle {
    pub name: String,
    /// The never-defined struct it points to, e.g. `nvmlDevice_st`.
    pub tag: String,
    pub doc: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Typedef {
    pub name: String,
    pub ty: Ty,
    pub doc: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alias {
    pub name: String,
    pub target: String,
    pub kind: AliasKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AliasKind {
    Function,
    Type,
}

/// A C type, reduced to what bindings need.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Ty {
    Void,
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    Float,
    Double,
    /// A typedef, record or enum of the header, by its model name.
    Named(String),
    Pointer {
        pointee: Box<Ty>,
        is_const: bool,
    },
    Array {
        elem: Box<Ty>,
        len: u64,
    },
    FnPtr {
        ret: Box<Ty>,
        params: Vec<Ty>,
    },
}

impl Ty {
    pub fn pointer(pointee: Ty, is_const: bool) -> Ty {
        Ty::Pointer { pointee: Box::new(pointee), is_const }
    }

    /// The C spelling, for reports and diagnostics.
    pub fn c_spelling(&self) -> String {
        match self {
            Ty::Void => "void".into(),
            Ty::Bool => "_Bool".into(),
            Ty::Char => "char".into(),
            Ty::SChar => "signed char".into(),
            Ty::UChar => "unsigned char".into(),
            Ty::Short => "short".into(),
            Ty::UShort => "unsigned short".into(),
            Ty::Int => "int".into(),
            Ty::UInt => "unsigned int".into(),
            Ty::Long => "long".into(),
            Ty::ULong => "unsigned long".into(),
            Ty::LongLong => "long long".into(),
            Ty::ULongLong => "unsigned long long".into(),
            Ty::Float => "float".into(),
            Ty::Double => "double".into(),
            Ty::Named(n) => n.clone(),
            Ty::Pointer { pointee, is_const } => {
                format!("{}{} *", if *is_const { "const " } else { "" }, pointee.c_spelling())
            }
            Ty::Array { elem, len } => format!("{}[{len}]", elem.c_spelling()),
            Ty::FnPtr { ret, params } => {
                let ps: Vec<String> = params.iter().map(Ty::c_spelling).collect();
                format!("{} (*)({})", ret.c_spelling(), ps.join(", "))
            }
        }
    }
}

impl Function {
    /// The C prototype, e.g. `nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int * deviceCount)`.
    pub fn prototype(&self) -> String {
        let ps: Vec<String> = self.params.iter().map(|p| format!("{} {}", p.ty.c_spelling(), p.name)).collect();
        let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
        format!("{} {}({ps})", self.ret.c_spelling(), self.name)
    }
}

/// The numeric parts of a release version (`13.5.37` → `[13, 5, 37]`), for ordering; `None`
/// for anything that is not dot-separated numbers (a header named by its path).
pub fn version_key(v: &str) -> Option<Vec<u32>> {
    v.split('.').map(|p| p.parse().ok()).collect()
}

/// A struct version constant's family and layout number: `nvmlPlatformInfo_v2` →
/// (`nvmlPlatformInfo`, 2); `None` for a name without a `_v<digits>` suffix.
pub fn struct_version(name: &str) -> Option<(&str, u32)> {
    let (base, n) = name.rsplit_once("_v")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((base, n.parse().ok()?))
}

impl Model {
    /// The record of the elements of `record`'s array field `field`, if it is an array of records.
    pub fn array_record(&self, record: &Record, field: &str) -> Option<&Record> {
        let f = record.fields.iter().find(|f| f.name == field)?;
        let Ty::Array { elem, .. } = self.resolve_typedef(&f.ty) else { return None };
        match self.resolve_typedef(elem) {
            Ty::Named(n) => self.records.get(n),
            _ => None,
        }
    }

    /// The innermost Doxygen group around 1-based `line`, if any.
    pub fn group_at(&self, line: u32) -> Option<&Group> {
        // Spans nest, so the innermost is the one that opened last.
        self.groups.iter().filter(|g| g.first_line <= line && line <= g.last_line).max_by_key(|g| g.first_line)
    }

    /// Functions callable without `NVML_NO_UNVERSIONED_FUNC_DEFS`.
    pub fn current_functions(&self) -> impl Iterator<Item = &Function> {
        self.functions.values().filter(|f| !f.legacy)
    }

    /// Whether `name` is a type of this header (record, enum, handle or typedef).
    pub fn has_type(&self, name: &str) -> bool {
        self.records.contains_key(name)
            || self.enums.contains_key(name)
            || self.handles.contains_key(name)
            || self.typedefs.contains_key(name)
    }

    /// Follows typedef aliases to the record, enum or handle a name stands for.
    pub fn resolve_typedef<'a>(&'a self, mut ty: &'a Ty) -> &'a Ty {
        for _ in 0..16 {
            match ty {
                Ty::Named(n) => match self.typedefs.get(n) {
                    Some(td) => ty = &td.ty,
                    None => return ty,
                },
                _ => return ty,
            }
        }
        ty
    }
}
