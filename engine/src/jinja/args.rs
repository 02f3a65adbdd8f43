//! Call arguments and Python's binding of them to named parameters.

use super::error::{Error, Result};
use super::value::Value;

/// The arguments of one call: positional, then keyword, in source order.
#[derive(Clone, Debug, Default)]
pub struct Args {
    pub pos: Vec<Value>,
    pub kw: Vec<(String, Value)>,
}

impl Args {
    pub fn positional(pos: Vec<Value>) -> Self {
        Args {
            pos,
            kw: Vec::new(),
        }
    }

    /// Binds to `params` like a Python signature (`func` names the function in errors;
    /// `implicit` counts leading parameters the caller already supplied, e.g. a filter's value,
    /// so Python's positional counts come out right). `None` marks a parameter not given.
    pub fn bind(&self, func: &str, params: &[&str], implicit: usize) -> Result<Vec<Option<Value>>> {
        if self.pos.len() > params.len() {
            let total = params.len() + implicit;
            let given = self.pos.len() + implicit;
            return Err(Error::type_error(
                format!(
                    "{func}() takes {} positional argument{} but {given} were given",
                    if total == implicit {
                        total.to_string()
                    } else {
                        format!("from {} to {total}", implicit.max(1))
                    },
                    if total == 1 { "" } else { "s" },
                )
                .replace("from 1 to 1 positional arguments", "1 positional argument"),
            ));
        }
        let mut bound: Vec<Option<Value>> = vec![None; params.len()];
        for (slot, v) in bound.iter_mut().zip(&self.pos) {
            *slot = Some(v.clone());
        }
        for (name, v) in &self.kw {
            let Some(i) = params.iter().position(|p| p == name) else {
                return Err(Error::type_error(format!(
                    "{func}() got an unexpected keyword argument '{name}'"
                )));
            };
            if bound[i].is_some() {
                return Err(Error::type_error(format!(
                    "{func}() got multiple values for argument '{name}'"
                )));
            }
            bound[i] = Some(v.clone());
        }
        Ok(bound)
    }

    /// For functions that take no arguments at all (`str.upper()`).
    pub fn none(&self, func: &str) -> Result<()> {
        if !self.kw.is_empty() {
            return Err(Error::type_error(format!(
                "{func}() takes no keyword arguments"
            )));
        }
        if !self.pos.is_empty() {
            return Err(Error::type_error(format!(
                "{func}() takes no arguments ({} given)",
                self.pos.len()
            )));
        }
        Ok(())
    }
}

/// An argument that must be an int (`'str' object cannot be interpreted as an integer`).
pub fn int_arg(v: &Value) -> Result<i64> {
    v.as_int().ok_or_else(|| {
        Error::type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            v.type_name()
        ))
    })
}

/// An argument that must be a str.
pub fn str_arg<'v>(v: &'v Value, what: &str) -> Result<&'v str> {
    v.as_str()
        .ok_or_else(|| Error::type_error(format!("{what} must be str, not {}", v.type_name())))
}
