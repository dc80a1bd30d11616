//! C types → [`Ty`], and typedefs (scalars, record aliases, opaque handles).

use clang_sys::*;

use super::cx::Type;
use super::{comments, Lower};
use crate::model::{Handle, Ty, Typedef};

/// `struct foo` and (in newer clang) typedef names come wrapped in an elaborated type.
pub fn strip_elaborated(t: Type<'_>) -> Type<'_> {
    if t.kind() == CXType_Elaborated {
        t.named()
    } else {
        t
    }
}

/// Calls `f` with every type name `ty` refers to.
pub fn for_each_named(ty: &Ty, f: &mut dyn FnMut(&str)) {
    match ty {
        Ty::Named(n) => f(n),
        Ty::Pointer { pointee, .. } => for_each_named(pointee, f),
        Ty::Array { elem, .. } => for_each_named(elem, f),
        Ty::FnPtr { ret, params } => {
            for_each_named(ret, f);
            params.iter().for_each(|p| for_each_named(p, f));
        }
        _ => {}
    }
}

/// Maps clang's builtin type kinds; `None` for anything that is not a builtin.
pub fn builtin(kind: CXTypeKind) -> Option<Ty> {
    Some(match kind {
        CXType_Void => Ty::Void,
        CXType_Bool => Ty::Bool,
        CXType_Char_S | CXType_Char_U => Ty::Char,
        CXType_SChar => Ty::SChar,
        CXType_UChar => Ty::UChar,
        CXType_Short => Ty::Short,
        CXType_UShort => Ty::UShort,
        CXType_Int => Ty::Int,
        CXType_UInt => Ty::UInt,
        CXType_Long => Ty::Long,
        CXType_ULong => Ty::ULong,
        CXType_LongLong => Ty::LongLong,
        CXType_ULongLong => Ty::ULongLong,
        CXType_Float => Ty::Float,
        CXType_Double => Ty::Double,
        _ => return None,
    })
}

impl Lower<'_> {
    /// Lowers a C type, or explains why it cannot.
    pub(super) fn lower_ty(&mut self, t: Type<'_>) -> Result<Ty, String> {
        if let Some(b) = builtin(t.kind()) {
            return Ok(b);
        }
        match t.kind() {
            CXType_Elaborated => self.lower_ty(t.named()),
            // A typedef of a system header (`size_t`, `uint32_t` in `cuda.h`) is its C type: the
            // model holds the header's own types only.
            CXType_Typedef if !self.in_header(t.declaration()) => self.lower_ty(t.canonical()),
            CXType_Typedef => Ok(Ty::Named(t.declaration().spelling())),
            CXType_Record | CXType_Enum => {
                let decl = t.declaration();
                if decl.is_anonymous() {
                    self.anon_names
                        .get(&decl.location().offset)
                        .map(|n| Ty::Named(n.clone()))
                        .ok_or_else(|| format!("anonymous type `{}` has no name", t.spelling()))
                } else {
                    Ok(Ty::Named(decl.spelling()))
                }
            }
            CXType_Pointer => {
                let p = t.pointee();
                if matches!(p.kind(), CXType_FunctionProto | CXType_FunctionNoProto) {
                    return self.lower_ty(p);
                }
                Ok(Ty::pointer(self.lower_ty(p)?, p.is_const()))
            }
            CXType_ConstantArray => {
                Ok(Ty::Array { elem: Box::new(self.lower_ty(t.element())?), len: t.array_len().max(0) as u64 })
            }
            CXType_IncompleteArray => Ok(Ty::Array { elem: Box::new(self.lower_ty(t.element())?), len: 0 }),
            CXType_FunctionProto | CXType_FunctionNoProto => {
                let params = t.arg_types().into_iter().map(|a| self.lower_ty(a)).collect::<Result<_, _>>()?;
                Ok(Ty::FnPtr { ret: Box::new(self.lower_ty(t.result())?), params })
            }
            _ => Err(format!("unsupported C type `{}`", t.spelling())),
        }
    }

    pub(super) fn lower_typedef(&mut self, c: super::cx::Cursor<'_>) {
        let name = c.spelling();
        let line = c.location().line;
        let doc = c.raw_comment().as_deref().and_then(comments::clean);
        let under = strip_elaborated(c.typedef_underlying());
        match under.kind() {
            CXType_Record | CXType_Enum => {
                let decl = under.declaration();
                // An anonymous struct or enum took the typedef's name already.
                if decl.is_anonymous() || decl.spelling() == name {
                    return;
                }
                self.model.typedefs.insert(name.clone(), Typedef { name, ty: Ty::Named(decl.spelling()), doc, line });
            }
            CXType_Pointer => {
                let pointee = strip_elaborated(under.pointee());
                let opaque = pointee.kind() == CXType_Record && pointee.declaration().definition().is_none();
                if opaque {
                    let tag = pointee.declaration().spelling();
                    self.model.handles.insert(name.clone(), Handle { name, tag, doc, line });
                } else {
                    self.insert_typedef(name, under, doc, line);
                }
            }
            _ => self.insert_typedef(name, under, doc, line),
        }
    }

    fn insert_typedef(&mut self, name: String, under: Type<'_>, doc: Option<String>, line: u32) {
        match self.lower_ty(under) {
            Ok(ty) => {
                self.model.typedefs.insert(name.clone(), Typedef { name, ty, doc, line });
            }
            Err(e) => self.diags.error(self.place(line), format!("typedef `{name}`: {e}")),
        }
    }
}
