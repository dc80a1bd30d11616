//! `exercise.rs` of the safe crate, compiled only for its tests: one call of every generated
//! method with placeholder arguments, so a test against the mock reaches each of them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::methods::{args, Arg};
use crate::emit::ident;
use crate::plan::{Method, Owner, Plan, Role};
use crate::rules::names::snake;
use crate::rules::Bindings;

/// Whether the method takes its handle by value (it frees or destroys the object).
fn consumes(m: &Method) -> bool {
    m.calls[0].params.iter().any(|p| p.role == Role::SelfConsumed)
}

/// Methods that end an object's life run after every other call on it.
fn is_final(m: &Method) -> bool {
    consumes(m)
        || ["free", "destroy", "remove", "shutdown", "unregister"].iter().any(|w| m.name.split('_').any(|p| p == *w))
}

pub fn exercise(b: &Bindings, plan: &Plan) -> TokenStream {
    let handle_types: Vec<(&String, &String)> = b.handles.iter().chain(b.ids.iter()).collect();
    let fields = handle_types.iter().map(|(_, t)| {
        let (f, t) = (format_ident!("{}", snake(t)), format_ident!("{t}"));
        quote!(pub #f: Option<#t<'n>>)
    });
    let mut ordered: Vec<&Method> = plan.methods.iter().collect();
    ordered.sort_by_key(|m| is_final(m));
    let calls = ordered.iter().map(|m| {
        let name = ident(&m.name);
        let head = &m.calls[0];
        let mut lets = Vec::new();
        let mut vals = Vec::new();
        for (i, (_, arg)) in args(head, &plan.record_io).into_iter().enumerate() {
            let a = format_ident!("a{i}");
            let value = match arg {
                Arg::Handle(h) => {
                    let f = format_ident!("{}", snake(b.handle_type(h).unwrap_or(h)));
                    lets.push(quote!(let #a = h.#f.as_ref()?;));
                    vals.push(quote!(#a));
                    continue;
                }
                Arg::Value(_) | Arg::Optional(_) | Arg::Field { .. } => quote!(Default::default()),
                Arg::Ref(_) => quote!(&Default::default()),
                Arg::Mut(_) => quote!(&mut Default::default()),
                Arg::Str => quote!(""),
                Arg::Slice(_) => quote!(&[Default::default()]),
                Arg::Len => quote!(1),
            };
            vals.push(value);
        }
        let (label, receiver) = match &m.owner {
            Owner::Nvml => (format!("Nvml::{}", m.name), quote!(nvml)),
            Owner::Handle(t) => {
                let ty = b.handle_type(t).unwrap_or(t);
                let f = format_ident!("{}", snake(ty));
                let take = if consumes(m) { quote!(let s = h.#f.take()?;) } else { quote!(let s = h.#f.as_ref()?;) };
                lets.insert(0, take);
                (format!("{ty}::{}", m.name), quote!(s))
            }
        };
        // The method that counts its list, if it has one, first.
        let taken: std::collections::BTreeSet<&str> =
            plan.methods.iter().filter(|o| o.owner == m.owner).map(|o| o.name.as_str()).collect();
        let count = super::methods::count_method_name(m, &plan.record_io, &taken).map(|c| {
            let label = format!("{}::{c}", label.rsplit_once("::").map_or(label.as_str(), |(owner, _)| owner));
            wrap_lets(&lets, &label, &receiver, &ident(&c), &vals)
        });
        let call = wrap_lets(&lets, &label, &receiver, &name, &vals);
        quote!(#count #call)
    });
    quote! {
        use super::handles::*;
        use crate::{Error, Nvml};

        /// One handle of each type to call methods on; `None` skips that type's methods.
        #[derive(Default)]
        pub struct Handles<'n> {
            #(#fields,)*
        }

        /// Calls every generated method once: the method's `Type::name` and its result, or
        /// `None` where a handle it needs is missing. Methods that free or destroy run last,
        /// and take their handle out of `h`.
        pub fn call_all(nvml: &Nvml, h: &mut Handles<'_>) -> Vec<(&'static str, Option<Result<(), Error>>)> {
            let mut out = Vec::new();
            #(#calls)*
            out
        }
    }
}

fn wrap_lets(
    lets: &[TokenStream],
    label: &str,
    receiver: &TokenStream,
    name: &proc_macro2::Ident,
    vals: &[TokenStream],
) -> TokenStream {
    let call = quote!(Some(#receiver.#name(#(#vals),*).map(|_| ())));
    // A closure lets the handles a call needs be taken with `?`.
    match lets {
        [] => quote!(out.push((#label, #call));),
        _ => quote! {
            out.push((#label, (|| {
                #(#lets)*
                #call
            })()));
        },
    }
}
