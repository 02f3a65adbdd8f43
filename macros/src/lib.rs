//! `canvas!("path/to/dsl.json")`: compile a RAGFlow canvas at Rust compile time.
//!
//! The path is relative to the manifest directory of the crate using the macro. The canvas is
//! loaded and checked exactly as `canvasc check` does; every checker error becomes a
//! `compile_error!` naming the component, the field and the bad reference, with the checker's
//! help; every warning becomes a rustc warning (a deprecation note at the macro call). A clean
//! canvas expands to the compiled program (`canvasc build`'s code, as an expression): a value
//! implementing `canvasc_runtime::exec::Program`.

use canvasc::codegen;
use canvasc::plain;
use canvasc_frontend::{analyze, Severity};
use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote, quote_spanned};
use std::path::PathBuf;
use syn::LitStr;

#[proc_macro]
pub fn canvas(input: TokenStream) -> TokenStream {
    let lit = syn::parse_macro_input!(input as LitStr);
    expand(&lit).into()
}

fn error(span: Span, message: &str) -> Tokens {
    quote_spanned!(span=> compile_error!(#message))
}

/// The directory paths are relative to: the using crate's manifest directory
/// (`CANVASC_MANIFEST_DIR` overrides it, for UI tests that compile in a scratch project).
fn base_dir() -> PathBuf {
    std::env::var_os("CANVASC_MANIFEST_DIR")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn expand(lit: &LitStr) -> Tokens {
    let span = lit.span();
    let rel = lit.value();
    let path = base_dir().join(&rel);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return error(span, &format!("canvas!: cannot read {rel}: {e}")),
    };
    let analysis = match analyze(&text) {
        Ok(a) => a,
        Err(e) => return error(span, &format!("canvas!: {rel}: {e}")),
    };
    let source: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let (errors, warnings): (Vec<_>, Vec<_>) = analysis
        .diagnostics
        .iter()
        .partition(|d| d.severity == Severity::Error);
    if !errors.is_empty() {
        let errors = errors
            .iter()
            .map(|d| error(span, &plain::diagnostic(&rel, d, &source)));
        return quote!({ #(#errors)* });
    }
    let warnings = warnings.iter().enumerate().map(|(i, d)| {
        let note = format!("warning {}", plain::diagnostic(&rel, d, &source));
        let name = format_ident!("canvas_warning_{}", i);
        quote_spanned! {span=>
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            let _ = #name;
        }
    });
    let module = codegen::canvas_module(&rel, &analysis);
    let file = path.to_string_lossy().to_string();
    quote! {
        {
            // Recompile when the DSL changes.
            const _: &[u8] = include_bytes!(#file);
            #(#warnings)*
            mod __canvasc_compiled {
                #module
            }
            __canvasc_compiled::Canvas::new()
        }
    }
}
