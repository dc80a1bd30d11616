//! nvml-sys's `generated/field_numbering.rs`: how each published header numbers the field ids
//! of the header being generated ([`FieldTable`], from the `drivers` and `fields` sections of
//! `gen-config/function-history.yaml`), for nvml-sys's hand-written `fields.rs`.

use std::path::PathBuf;

use anyhow::Result;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::DIR;
use crate::emit::Output;
use crate::history::fields::FieldTable;
use crate::rules::Bindings;

pub fn emit(b: &Bindings, table: &FieldTable, out: &mut Output) -> Result<()> {
    let path = PathBuf::from(DIR).join("field_numbering.rs");
    let what = "How each published nvml.h numbers this header's NVML_FI_* field ids, and its first driver.";
    out.add_rust(&b.model, path, what, tokens(table))
}

fn pairs(list: &[(u32, u32)]) -> TokenStream {
    let items = list.iter().map(|(a, b)| {
        let (a, b) = (Literal::u32_unsuffixed(*a), Literal::u32_unsuffixed(*b));
        quote!((#a, #b))
    });
    quote!(&[#(#items),*])
}

fn tokens(t: &FieldTable) -> TokenStream {
    let headers = t.headers.iter().map(|h| {
        let v = h.version.as_str();
        let driver = match h.first_driver {
            Some([a, b, c]) => {
                let (a, b, c) = (Literal::u32_unsuffixed(a), Literal::u32_unsuffixed(b), Literal::u32_unsuffixed(c));
                quote!(Some([#a, #b, #c]))
            }
            None => quote!(None),
        };
        let n = Literal::usize_unsuffixed(h.numbering);
        quote!((#v, #driver, #n))
    });
    let numberings = t.numberings.iter().map(|n| {
        let (moved, back) = (pairs(&n.moved), pairs(&n.back));
        let absent = n.absent.iter().map(|a| Literal::u32_unsuffixed(*a));
        let later = n.later.iter().map(|a| Literal::u32_unsuffixed(*a));
        quote!(FieldNumberingTable { moved: #moved, back: #back, absent: &[#(#absent),*], later: &[#(#later),*] })
    });
    let (hn, nn) = (Literal::usize_unsuffixed(t.headers.len()), Literal::usize_unsuffixed(t.numberings.len()));
    let none =
        t.headers.is_empty().then(|| quote!(#[doc = ""] #[doc = " There was no field history: the table is empty."]));
    quote! {
        /// How one header numbers the `NVML_FI_*` field ids of the header these bindings were
        /// generated from (their "default" numbers), as differences: any other id is the same.
        #[derive(Debug)]
        pub struct FieldNumberingTable {
            /// `(default id, this header's id)` of each field it numbers differently, sorted by
            /// the default id.
            pub moved: &'static [(u32, u32)],
            /// The same pairs as `(this header's id, default id)`, sorted by this header's id.
            pub back: &'static [(u32, u32)],
            /// The default ids of the fields this header lacks whose number another header
            /// gives another field, sorted: never sent to its drivers.
            pub absent: &'static [u32],
            /// The default ids of the fields this header lacks whose number no header gives
            /// another field, sorted: sent as they are (a later driver of the branch may know
            /// them; one that does not answers an error for the field, never another field).
            pub later: &'static [u32],
        }

        /// Every published header, oldest first: its version, the first driver version
        /// `[major, minor, patch]` of the CUDA toolkit release that shipped it (`None` where not
        /// known), and the index of its numbering in [`NUMBERINGS`].
        #none
        pub static HEADERS: [(&str, Option<[u32; 3]>, usize); #hn] = [#(#headers),*];

        /// The distinct numberings of [`HEADERS`].
        pub static NUMBERINGS: [FieldNumberingTable; #nn] = [#(#numberings),*];
    }
}
