//! [`Spec`]: any node's component, as the interpreter holds it. Expanded from the catalogue's
//! table of kinds (`frontend::catalog::catalogue!`), which the code generator reads too, so the
//! interpreter and compiled programs build every kind from the same type.

use super::Component;
use crate::context::NodeCx;
use crate::error::RunError;
use crate::state::{InputKeys, RunState};
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::catalog::{catalogue, Kind};
use canvasc_frontend::meta::Target;
use canvasc_value::{Json, Map};
use std::borrow::Cow;

macro_rules! spec {
    // The component a row's type is built from (see `catalogue!`).
    (@build $module:ident::$ty:ident, $kind:ident, $params:ident, $parent:ident) => {
        super::$module::$ty
    };
    (@build $module:ident::$ty:ident, $kind:ident, $params:ident, $parent:ident, params) => {
        super::$module::$ty::from_params($params)
    };
    (@build $module:ident::$ty:ident, $kind:ident, $params:ident, $parent:ident, parent) => {
        super::$module::$ty::from_params($parent)
    };
    (@build $module:ident::$ty:ident, $kind:ident, $params:ident, $parent:ident, kind) => {
        super::$module::$ty($kind)
    };
    // `$e` applied to the component `$c` inside the `Spec` `$spec`.
    (@each [$($variant:ident)*] $spec:expr, $c:ident => $e:expr) => {
        match $spec {
            $(Spec::$variant($c) => $e,)*
        }
    };
    ($(
        $(#[$meta:meta])*
        $variant:ident => $name:literal, $class:ident, $module:ident::$ty:ident $(($from:ident))?;
    )*) => {
        /// A node's component, as the interpreter holds it (generated programs hold each one
        /// typed): one variant per kind, boxed, so a node costs the same whatever its kind.
        #[derive(Clone, Debug)]
        pub enum Spec {
            $($variant(Box<super::$module::$ty>),)*
        }

        impl Spec {
            /// Type a node's parameters. Iteration and Loop items read their parent's
            /// parameters.
            pub fn build(
                kind: Kind,
                params: &Map<String, Json>,
                parent: Option<&Map<String, Json>>,
            ) -> Spec {
                let empty = Map::new();
                let parent = parent.unwrap_or(&empty);
                match kind {
                    $(Kind::$variant => Spec::$variant(Box::new(
                        spec!(@build $module::$ty, kind, params, parent $(, $from)?)
                    )),)*
                }
            }

            /// The Rust type of the component inside, which the code generator names from the
            /// catalogue too.
            #[cfg(test)]
            fn type_name(&self) -> &'static str {
                fn of<T>(_: &T) -> &'static str {
                    std::any::type_name::<T>()
                }
                spec!(@each [$($variant)*] self, c => of(&**c))
            }
        }

        impl Component for Spec {
            async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
                spec!(@each [$($variant)*] self, c => c.body(cx).await)
            }

            fn body_now(&self, cx: &NodeCx<'_>, s: &mut RunState) -> Option<Result<(), RunError>> {
                spec!(@each [$($variant)*] self, c => c.body_now(cx, s))
            }

            fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
                spec!(@each [$($variant)*] self, c => c.thoughts(cx))
            }

            fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
                spec!(@each [$($variant)*] self, c => c.dependencies(cx))
            }

            fn get_input(&self, cx: &NodeCx<'_>) -> Result<Map<String, Json>, RunError> {
                spec!(@each [$($variant)*] self, c => c.get_input(cx))
            }

            fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
                spec!(@each [$($variant)*] self, c => c.input_keys(cx))
            }

            fn item_ended(&self, cx: &NodeCx<'_>) -> Result<bool, RunError> {
                spec!(@each [$($variant)*] self, c => c.item_ended(cx))
            }

            fn bind(&mut self, r: &dyn Resolve) {
                spec!(@each [$($variant)*] self, c => c.bind(r))
            }
        }
    };
}

catalogue!(spec);

#[cfg(test)]
mod tests {
    use super::Spec;
    use canvasc_frontend::catalog::Kind;
    use canvasc_value::Map;

    /// The code generator writes `c::<module>::<ty>` from the catalogue's text for a kind
    /// (`c` is `canvasc_runtime::exec::components`, the facade's name for this crate's
    /// `components`); the interpreter must build that very type, or a compiled program and the
    /// interpreter would run different components.
    #[test]
    fn the_interpreter_builds_the_type_the_code_generator_names() {
        let params = Map::new();
        let mut differ = Vec::new();
        for &kind in Kind::ALL {
            let imp = kind.implementation();
            let named = format!("canvasc_engine::components::{}::{}", imp.module, imp.ty);
            let built = Spec::build(kind, &params, Some(&params)).type_name();
            if built != named {
                differ.push(format!(
                    "{kind}: the interpreter builds {built}, codegen names {named}"
                ));
            }
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }
}
