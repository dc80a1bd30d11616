//! Structs and unions, with clang's size, alignment and field offsets, and names for nested
//! anonymous records (`Parent_field`, or `Parent_anonN` for an unnamed member).

use clang_sys::*;

use super::cx::Cursor;
use super::types::strip_elaborated;
use super::{comments, Lower};
use crate::model::{Field, Record, RecordKind, Ty};

impl Lower<'_> {
    pub(super) fn lower_record(&mut self, c: Cursor<'_>, name: String, parent: Option<String>) {
        let kind = if c.kind() == CXCursor_UnionDecl { RecordKind::Union } else { RecordKind::Struct };
        let ty = c.ty();
        let line = c.location().line;
        let (Some(size), Some(align)) = (ty.size(), ty.align()) else {
            self.diags.error(self.place(line), format!("clang gives no layout for `{name}`"));
            return;
        };
        let tag = (!c.is_anonymous()).then(|| c.spelling());
        let mut fields = Vec::new();
        let mut anon_members = 0;
        for ch in c.children() {
            match ch.kind() {
                CXCursor_StructDecl | CXCursor_UnionDecl if ch.is_definition() => {
                    if ch.is_anonymous_member() {
                        let field = format!("anon{anon_members}");
                        anon_members += 1;
                        let nested = format!("{name}_{field}");
                        self.anon_names.insert(ch.location().offset, nested.clone());
                        self.lower_record(ch, nested.clone(), Some(name.clone()));
                        // The member's offset: where its first field sits in the parent, less
                        // that field's offset inside the member.
                        let first = ch.children().into_iter().find(|f| f.kind() == CXCursor_FieldDecl);
                        let offset = first
                            .and_then(|f| Some(ty.offset_of(&f.spelling())? - f.field_offset_bits()?))
                            .unwrap_or(0)
                            / 8;
                        let doc = ch.raw_comment().as_deref().and_then(comments::clean);
                        fields.push(Field { name: field, ty: Ty::Named(nested), offset, bit_width: None, doc });
                    } else if !ch.is_anonymous() {
                        // A tagged struct declared inside another is still a file-scope type.
                        self.lower_record(ch, ch.spelling(), None);
                    }
                }
                CXCursor_EnumDecl if ch.is_definition() && !ch.is_anonymous() => self.lower_enum(ch, ch.spelling()),
                CXCursor_FieldDecl => {
                    let fname = ch.spelling();
                    self.name_anonymous_field_type(ch, &name, &fname);
                    let fty = match self.lower_ty(ch.ty()) {
                        Ok(t) => t,
                        Err(e) => {
                            self.diags.error(self.place(ch.location().line), format!("field `{name}.{fname}`: {e}"));
                            continue;
                        }
                    };
                    let bit_width = ch.bit_width();
                    let bits = ch.field_offset_bits().unwrap_or(0);
                    let offset = if bit_width.is_some() { bits } else { bits / 8 };
                    let doc = self.member_doc(ch);
                    fields.push(Field { name: fname, ty: fty, offset, bit_width, doc });
                }
                _ => {}
            }
        }
        let doc = c.raw_comment().as_deref().and_then(comments::clean);
        let rec = Record { name: name.clone(), kind, tag, size, align, fields, doc, parent, line };
        if let Some(old) = self.model.records.get(&name) {
            if *old != rec {
                self.diags.error(self.place(line), format!("`{name}` is defined twice, differently"));
            }
            return;
        }
        self.model.records.insert(name, rec);
    }

    /// `union { ... } data;` inside `Parent` gets the name `Parent_data`.
    fn name_anonymous_field_type(&mut self, field: Cursor<'_>, parent: &str, fname: &str) {
        let mut t = strip_elaborated(field.ty());
        while t.kind() == CXType_ConstantArray {
            t = strip_elaborated(t.element());
        }
        let decl = t.declaration();
        if !matches!(t.kind(), CXType_Record | CXType_Enum) || !decl.is_anonymous() {
            return;
        }
        let offset = decl.location().offset;
        if self.anon_names.contains_key(&offset) {
            return;
        }
        let nested = format!("{parent}_{fname}");
        self.anon_names.insert(offset, nested.clone());
        if t.kind() == CXType_Record {
            self.lower_record(decl, nested, Some(parent.to_string()));
        } else {
            self.lower_enum(decl, nested);
        }
    }
}
