//! Function prototypes, legacy ones included.

use super::cx::Cursor;
use super::{comments, doxygen, Lower};
use crate::model::{Function, Param};

impl Lower<'_> {
    pub(super) fn lower_function(&mut self, c: Cursor<'_>) {
        let name = c.spelling();
        let line = c.location().line;
        let ret = match self.lower_ty(c.result_type()) {
            Ok(t) => t,
            Err(e) => {
                self.diags.error(self.place(line), format!("return type of `{name}`: {e}"));
                return;
            }
        };
        let mut params = Vec::new();
        for (i, a) in c.arguments().into_iter().enumerate() {
            let pname = match a.spelling() {
                s if s.is_empty() => format!("arg{i}"),
                s => s,
            };
            match self.lower_ty(a.ty()) {
                Ok(ty) => params.push(Param { name: pname, ty }),
                Err(e) => {
                    self.diags.error(self.place(line), format!("parameter `{pname}` of `{name}`: {e}"));
                    return;
                }
            }
        }
        let attached = c.raw_comment().as_deref().and_then(comments::clean);
        // A grouping comment (`/** @} */`) between a function's documentation and its
        // prototype is what clang attaches; the documentation is the block above it.
        let doc = match attached {
            Some(d) if !comments::is_grouping(&d) => Some(d),
            _ if c.location().file == self.header_file => comments::block_above(&self.source_lines, line),
            _ => None,
        };
        let f = Function {
            legacy: !self.current_functions.contains(&name),
            docs: doc.as_deref().map(doxygen::parse).unwrap_or_default(),
            doc,
            deprecated: c.is_deprecated(),
            name: name.clone(),
            ret,
            params,
            line,
        };
        match self.model.functions.get_mut(&name) {
            // A redeclaration: keep the first, but a documented one wins.
            Some(old) if old.ret == f.ret && old.params.iter().map(|p| &p.ty).eq(f.params.iter().map(|p| &p.ty)) => {
                if old.doc.is_none() {
                    old.doc = f.doc;
                    old.docs = f.docs;
                }
                old.deprecated |= f.deprecated;
            }
            Some(_) => {
                self.diags.error(self.place(line), format!("`{name}` is declared twice with different signatures"))
            }
            None => {
                self.model.functions.insert(name, f);
            }
        }
    }
}
