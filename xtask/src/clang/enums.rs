//! Enums: every constant with its exact value, duplicates and values above `INT_MAX` kept.

use clang_sys::*;

use super::cx::Cursor;
use super::{comments, types, Lower};
use crate::model::{Enum, EnumConstant, IntValue, Ty};

impl Lower<'_> {
    pub(super) fn lower_enum(&mut self, c: Cursor<'_>, name: String) {
        let line = c.location().line;
        let repr = match types::builtin(c.enum_integer_type().canonical().kind()) {
            Some(t) => t,
            None => {
                self.diags.error(self.place(line), format!("enum `{name}` has no integer type"));
                return;
            }
        };
        let unsigned = matches!(repr, Ty::UChar | Ty::UShort | Ty::UInt | Ty::ULong | Ty::ULongLong | Ty::Bool);
        let constants = c
            .children()
            .into_iter()
            .filter(|k| k.kind() == CXCursor_EnumConstantDecl)
            .map(|k| EnumConstant {
                name: k.spelling(),
                value: if unsigned {
                    IntValue::Unsigned(k.enum_value_unsigned())
                } else {
                    IntValue::Signed(k.enum_value_signed())
                },
                doc: self.member_doc(k),
            })
            .collect();
        let tag = (!c.is_anonymous()).then(|| c.spelling());
        let doc = c.raw_comment().as_deref().and_then(comments::clean);
        self.model.enums.insert(name.clone(), Enum { name, tag, repr, constants, doc, line });
    }
}
