//! JSON values as Rust expressions built from `canvasc_runtime::value::lit` (in scope in
//! generated code): `obj([("k", s("v")), …])`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use serde_json::Value as Json;

pub fn json(v: &Json) -> TokenStream {
    match v {
        Json::Null => quote!(NULL),
        Json::Bool(x) => quote!(b(#x)),
        Json::Number(n) => {
            if let Some(x) = n.as_i64() {
                let l = Literal::i64_unsuffixed(x);
                quote!(i(#l))
            } else if let Some(x) = n.as_u64() {
                let l = Literal::u64_unsuffixed(x);
                quote!(u(#l))
            } else {
                let l = Literal::f64_unsuffixed(n.as_f64().unwrap_or(0.0));
                quote!(f(#l))
            }
        }
        Json::String(x) => quote!(s(#x)),
        Json::Array(items) => {
            let items = items.iter().map(json);
            quote!(arr([#(#items),*]))
        }
        Json::Object(m) => {
            let pairs = m.iter().map(|(k, v)| {
                let v = json(v);
                quote!((#k, #v))
            });
            quote!(obj([#(#pairs),*]))
        }
    }
}

/// An object's entries as a `Map` expression.
pub fn map(m: &serde_json::Map<String, Json>) -> TokenStream {
    let pairs = m.iter().map(|(k, v)| {
        let v = json(v);
        quote!((#k, #v))
    });
    quote!(map([#(#pairs),*]))
}
