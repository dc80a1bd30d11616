//! What a parameter's [`Role`] means to an emitter, decided in one place per emitter: the
//! [`RoleVisitor`] trait has a method per variant and no defaults, and [`visit`] is the one
//! exhaustive match over a parameter's role. The emitters that write something per parameter
//! (the safe methods, `readings.txt`, the mock's answers, its hostile mode and capture's
//! readers) implement the trait, so a new variant does not compile until each of them has a
//! method for it. An emitter that cannot serve a role answers why; `emit::emit_all` reports
//! the reasons as diagnostics.

use super::{ListRecord, ParamPlan, Probe, Role, Val};

/// An emitter's part for one parameter, or why it cannot serve the parameter's role.
pub type Served<T> = Result<T, String>;

/// What one emitter does with each role. Every method gets the parameter (its name, C type
/// and plan) and the variant's fields.
pub trait RoleVisitor<'c> {
    /// What the emitter makes of one parameter.
    type Out;
    /// [`Role::SelfHandle`].
    fn self_handle(&mut self, p: &'c ParamPlan) -> Served<Self::Out>;
    /// [`Role::SelfConsumed`].
    fn self_consumed(&mut self, p: &'c ParamPlan) -> Served<Self::Out>;
    /// [`Role::In`].
    fn by_value(&mut self, p: &'c ParamPlan, val: &'c Val) -> Served<Self::Out>;
    /// [`Role::InStr`].
    fn in_str(&mut self, p: &'c ParamPlan) -> Served<Self::Out>;
    /// [`Role::InPtr`].
    fn in_ptr(&mut self, p: &'c ParamPlan, val: &'c Val) -> Served<Self::Out>;
    /// [`Role::InOut`].
    fn in_out(&mut self, p: &'c ParamPlan, val: &'c Val) -> Served<Self::Out>;
    /// [`Role::Out`].
    fn out(&mut self, p: &'c ParamPlan, val: &'c Val) -> Served<Self::Out>;
    /// [`Role::StrBuf`].
    fn str_buf(&mut self, p: &'c ParamPlan, size: u64) -> Served<Self::Out>;
    /// [`Role::StrLen`].
    fn str_len(&mut self, p: &'c ParamPlan, by_ptr: bool) -> Served<Self::Out>;
    /// [`Role::Count`].
    fn count(&mut self, p: &'c ParamPlan, probe: Probe) -> Served<Self::Out>;
    /// [`Role::Array`].
    fn array(&mut self, p: &'c ParamPlan, val: &'c Val, unused: Option<&'c str>) -> Served<Self::Out>;
    /// [`Role::CappedCount`].
    fn capped_count(&mut self, p: &'c ParamPlan) -> Served<Self::Out>;
    /// [`Role::Capped`].
    fn capped(&mut self, p: &'c ParamPlan, val: &'c Val, capacity: u64) -> Served<Self::Out>;
    /// [`Role::SizedLen`].
    fn sized_len(&mut self, p: &'c ParamPlan, bytes: bool, capacity: Option<u64>) -> Served<Self::Out>;
    /// [`Role::SizedArray`].
    fn sized_array(
        &mut self,
        p: &'c ParamPlan,
        val: &'c Val,
        input: bool,
        unused: Option<&'c str>,
    ) -> Served<Self::Out>;
    /// [`Role::RecordList`].
    fn record_list(&mut self, p: &'c ParamPlan, list: &'c ListRecord) -> Served<Self::Out>;
}

/// `v`'s part for parameter `p`: the one match over a role, without a catch-all.
pub fn visit<'c, V: RoleVisitor<'c> + ?Sized>(v: &mut V, p: &'c ParamPlan) -> Served<V::Out> {
    match &p.role {
        Role::SelfHandle => v.self_handle(p),
        Role::SelfConsumed => v.self_consumed(p),
        Role::In(val) => v.by_value(p, val),
        Role::InStr => v.in_str(p),
        Role::InPtr(val) => v.in_ptr(p, val),
        Role::InOut(val) => v.in_out(p, val),
        Role::Out(val) => v.out(p, val),
        Role::StrBuf { size } => v.str_buf(p, *size),
        Role::StrLen { by_ptr } => v.str_len(p, *by_ptr),
        Role::Count { probe } => v.count(p, *probe),
        Role::Array { val, unused } => v.array(p, val, unused.as_deref()),
        Role::CappedCount => v.capped_count(p),
        Role::Capped { val, capacity } => v.capped(p, val, *capacity),
        Role::SizedLen { bytes, capacity } => v.sized_len(p, *bytes, *capacity),
        Role::SizedArray { val, input, unused } => v.sized_array(p, val, *input, unused.as_deref()),
        Role::RecordList(list) => v.record_list(p, list),
    }
}

/// `v`'s parts for `params` in order; the first parameter it cannot serve ends the visit, the
/// reason naming that parameter.
pub fn visit_all<'c, V: RoleVisitor<'c> + ?Sized>(v: &mut V, params: &'c [ParamPlan]) -> Served<Vec<V::Out>> {
    params.iter().map(|p| visit(v, p).map_err(|why| unserved(p, &why))).collect()
}

/// The reason `why` an emitter gives for `p`, naming the parameter and its role.
pub fn unserved(p: &ParamPlan, why: &str) -> String {
    format!("parameter `{}` ({}): {why}", p.name, p.role.kind())
}

impl Role {
    /// The variant's name as the plan's readings spell it (`in/out`, `count`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Role::SelfHandle => "the handle",
            Role::SelfConsumed => "the handle, consumed",
            Role::In(_) => "in",
            Role::InStr => "in string",
            Role::InPtr(_) => "in by pointer",
            Role::InOut(_) => "in/out",
            Role::Out(_) => "out",
            Role::StrBuf { .. } => "string buffer",
            Role::StrLen { .. } => "string length",
            Role::Count { .. } => "count",
            Role::Array { .. } => "array",
            Role::CappedCount => "out-only count",
            Role::Capped { .. } => "array of an out-only count",
            Role::SizedLen { .. } => "length of a caller-sized array",
            Role::SizedArray { .. } => "caller-sized array",
            Role::RecordList(_) => "list inside a record",
        }
    }
}
