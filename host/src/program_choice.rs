//! The one place that decides whether a canvas runs compiled or on the interpreter, for
//! `run FILE` of a built binary and for the server's turns alike: a canvas runs compiled when
//! the binary carries a program built for its fingerprint and the caller wants one; otherwise
//! the interpreter runs it, for a reason the caller reports.

/// One compiled canvas as a built binary's registry lists it: source file, fingerprint, and
/// its checker error count at build time.
pub type Compiled = (&'static str, &'static str, usize);

/// What the caller wants, before the fingerprint is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// The compiled program when there is one (a released version; `run` without flags).
    Compiled,
    /// The interpreter, whatever is compiled in (a draft; `run --interpret`).
    Interpreter,
}

/// The decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// The program compiled for the fingerprint, with its checker error count at build time.
    Compiled { build_errors: usize },
    /// The interpreter, because the caller asked for it.
    InterpreterWanted,
    /// The interpreter, because no program was compiled for this canvas.
    NotCompiled,
}

/// The choice for a canvas whose fingerprint is `fingerprint` among the programs `compiled`.
pub fn choose(compiled: &[Compiled], fingerprint: &str, wanted: Wanted) -> Choice {
    if wanted == Wanted::Interpreter {
        return Choice::InterpreterWanted;
    }
    match compiled.iter().find(|(_, f, _)| *f == fingerprint) {
        Some(&(_, _, build_errors)) => Choice::Compiled { build_errors },
        None => Choice::NotCompiled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARRIED: &[Compiled] = &[("a.json", "sha256:aa", 0), ("b.json", "sha256:bb", 2)];

    #[test]
    fn a_carried_fingerprint_runs_compiled_unless_the_interpreter_is_wanted() {
        assert_eq!(
            choose(CARRIED, "sha256:bb", Wanted::Compiled),
            Choice::Compiled { build_errors: 2 }
        );
        assert_eq!(
            choose(CARRIED, "sha256:bb", Wanted::Interpreter),
            Choice::InterpreterWanted
        );
        assert_eq!(
            choose(CARRIED, "sha256:cc", Wanted::Compiled),
            Choice::NotCompiled
        );
        assert_eq!(
            choose(&[], "sha256:aa", Wanted::Compiled),
            Choice::NotCompiled
        );
    }
}
