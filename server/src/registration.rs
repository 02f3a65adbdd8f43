//! Who may create an account (`--registration`). The default is `closed`: only the first
//! account of an empty database (which becomes the administrator) and the accounts an
//! administrator creates. `invite` also admits anyone holding an unused invitation code;
//! `open` admits anyone who can reach the server, which must be chosen explicitly.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Registration {
    #[default]
    Closed,
    Invite,
    Open,
}

impl FromStr for Registration {
    type Err = String;

    fn from_str(text: &str) -> Result<Registration, String> {
        match text {
            "closed" => Ok(Registration::Closed),
            "invite" => Ok(Registration::Invite),
            "open" => Ok(Registration::Open),
            other => Err(format!(
                "unknown registration mode `{other}` (closed, invite or open)"
            )),
        }
    }
}

impl fmt::Display for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Registration::Closed => "closed",
            Registration::Invite => "invite",
            Registration::Open => "open",
        })
    }
}
