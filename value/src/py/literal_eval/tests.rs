use super::*;
use crate::py::json_dumps;

/// (source, `json.dumps` of Python's result, or None where literal_eval fails here)
const LITERAL_EVAL: &[(&str, Option<&str>)] = &[
    ("1", Some("1")),
    ("-1", Some("-1")),
    ("+1", Some("1")),
    ("1.5", Some("1.5")),
    ("-0.0", Some("-0.0")),
    (".5", Some("0.5")),
    ("5.", Some("5.0")),
    ("1e3", Some("1000.0")),
    ("1E+3", Some("1000.0")),
    ("1_000", Some("1000")),
    ("0x_1f", Some("31")),
    ("0o17", Some("15")),
    ("0b101", Some("5")),
    ("0X1F", Some("31")),
    ("00", Some("0")),
    ("0_0", Some("0")),
    ("01", None),
    ("0_7", None),
    ("1__0", None),
    ("1_", None),
    ("1e", None),
    ("0x", None),
    ("0b2", None),
    ("1.e5", Some("100000.0")),
    ("1_0.5_0", Some("10.5")),
    ("1e1_0", Some("10000000000.0")),
    ("1._0", None),
    ("0e0", Some("0.0")),
    ("9223372036854775807", Some("9223372036854775807")),
    ("-9223372036854775808", Some("-9223372036854775808")),
    ("9223372036854775808", Some("9223372036854775808")),
    ("18446744073709551615", Some("18446744073709551615")),
    ("18446744073709551616", Some("1.8446744073709552e+19")),
    ("True", Some("true")),
    ("False", Some("false")),
    ("None", Some("null")),
    ("true", None),
    ("null", None),
    ("Truex", None),
    ("'a'", Some("\"a\"")),
    ("\"b\"", Some("\"b\"")),
    ("'''a\nb'''", Some("\"a\\nb\"")),
    ("\"\"\"x\"\"\"", Some("\"x\"")),
    ("'a\nb'", None),
    ("'a' 'b'", Some("\"ab\"")),
    ("'a'\n'b'", None),
    ("['a'\n 'b']", Some("[\"ab\"]")),
    ("r'\\n'", Some("\"\\\\n\"")),
    ("R'\\''", Some("\"\\\\'\"")),
    ("u'x'", Some("\"x\"")),
    ("'\\n\\t\\\\\\'\\\"'", Some("\"\\n\\t\\\\'\\\"\"")),
    ("'\\x41\\u00e9\\U0001F600'", Some("\"Aé😀\"")),
    ("'\\101\\0'", Some("\"A\\u0000\"")),
    ("'\\777'", Some("\"ǿ\"")),
    ("'\\8'", Some("\"\\\\8\"")),
    ("'\\d'", Some("\"\\\\d\"")),
    ("'\\a\\b\\f\\v'", Some("\"\\u0007\\b\\f\\u000b\"")),
    ("'\\x4'", None),
    ("'\\u12'", None),
    ("'\\U00110000'", None),
    ("'it\\'s'", Some("\"it's\"")),
    ("\"it's\"", Some("\"it's\"")),
    ("'é中😀'", Some("\"é中😀\"")),
    ("'a\\\nb'", Some("\"ab\"")),
    ("'''a\r\nb'''", Some("\"a\\nb\"")),
    ("'a\rb'", None),
    ("'''a'''''", Some("\"a\"")),
    ("''''''", Some("\"\"")),
    ("'''''", None),
    ("[]", Some("[]")),
    ("()", Some("[]")),
    ("{}", Some("{}")),
    ("[1,]", Some("[1]")),
    ("(1,)", Some("[1]")),
    ("(1)", Some("1")),
    ("((1))", Some("1")),
    ("-(1)", Some("-1")),
    ("-((1))", Some("-1")),
    ("--1", None),
    ("-+1", None),
    ("+-1", None),
    ("-True", None),
    ("+'a'", None),
    ("-(1,)", None),
    ("1,", Some("[1]")),
    ("1, 2", Some("[1, 2]")),
    ("(1, 2,)", Some("[1, 2]")),
    ("(,)", None),
    ("[,]", None),
    ("(1,,)", None),
    ("[1, [2, (3, {4: 5})]]", Some("[1, [2, [3, {\"4\": 5}]]]")),
    (
        "{'a': 1, 'b': [True, None]}",
        Some("{\"a\": 1, \"b\": [true, null]}"),
    ),
    ("{1: 2,}", Some("{\"1\": 2}")),
    ("{1: 'a', True: 'b'}", Some("{\"1\": \"b\"}")),
    ("{True: 'a', 1: 'b'}", Some("{\"true\": \"b\"}")),
    ("{0: 1, 0.0: 2, False: 3}", Some("{\"0\": 3}")),
    ("{-0.0: 1}", Some("{\"-0.0\": 1}")),
    (
        "{1.5: 2, None: 3, False: 4}",
        Some("{\"1.5\": 2, \"null\": 3, \"false\": 4}"),
    ),
    ("{'a': 1, 'a': 2}", Some("{\"a\": 2}")),
    ("{1e16: 'x'}", Some("{\"1e+16\": \"x\"}")),
    (
        "{(1, 2): 3}",
        None, /* accepted by Python, no JSON form */
    ),
    ("{[1]: 2}", None),
    ("{1: 2, 3}", None),
    ("{1:2,,}", None),
    ("{,}", None),
    ("{**{}}", None),
    ("{1, 2, 3}", Some("[1, 2, 3]")),
    ("{1,}", Some("[1]")),
    ("{1, 1.0, True}", Some("[1]")),
    ("{'x', 'x'}", Some("[\"x\"]")),
    ("{[1]}", None),
    ("{(1, 2), (1, 2.0)}", Some("[[1, 2]]")),
    ("set()", Some("[]")),
    ("set( )", Some("[]")),
    ("set(1)", None),
    ("frozenset()", None),
    ("[*[]]", None),
    ("1+2", None),
    ("1 if 1 else 2", None),
    ("[1][0]", None),
    ("'abc'[0]", None),
    ("x", None),
    ("1 2", None),
    ("1;", None),
    ("1\n2", None),
    ("1 # c", Some("1")),
    ("# c\n1", Some("1")),
    ("\n1", Some("1")),
    ("\n  1", None),
    ("  1", Some("1")),
    ("\t1", Some("1")),
    ("1\n", Some("1")),
    ("1\n\n", Some("1")),
    ("1\n  ", None),
    ("1\n  # c", Some("1")),
    ("\\\n1", Some("1")),
    ("1 \\\n", None),
    ("1\\", None),
    ("'a'\\\n'b'", Some("\"ab\"")),
    ("[\\\n1]", Some("[1]")),
    ("\\\n\t0", None),
    ("\\\n\\\n\n0", Some("0")),
    ("\u{c}1", Some("1")),
    ("\u{b}1", None),
    ("\u{c}  1", None),
    ("1\r\n", Some("1")),
    ("\r\n1", Some("1")),
    ("1\r2", None),
    ("", None),
    (" ", None),
    ("#", None),
    ("\n", None),
    ("  # only comment", None),
    ("[1, 2", None),
    ("1)", None),
    ("]", None),
    ("(]", None),
    ("'abc", None),
    ("'''abc''", None),
    ("1.real", None),
    ("1 .real", None),
    ("1e400", None /* accepted by Python, no JSON form */),
    ("1j", None /* accepted by Python, no JSON form */),
    ("1+2j", None /* accepted by Python, no JSON form */),
    ("-1j", None /* accepted by Python, no JSON form */),
    ("...", None /* accepted by Python, no JSON form */),
    ("b'x'", None /* accepted by Python, no JSON form */),
    ("f'x'", None),
    ("'x' f'y'", None),
    ("'a' b'b'", None),
    ("ur'x'", None),
    (
        "'\\ud800'",
        None, /* accepted by Python, no JSON form */
    ),
    ("'\\N{BULLET}'", None /* \N{...} unsupported */),
    ("é", None),
    ("ｓｅｔ()", None /* NFKC identifiers unsupported */),
    ("'\u{0}'", None),
    ("{1: 1j, 1: 2}", Some("{\"1\": 2}")),
    (
        "{b'k': 1, b'k': 2}",
        None, /* accepted by Python, no JSON form */
    ),
    ("{'a': b'x', 'a': 'y'}", Some("{\"a\": \"y\"}")),
    ("{1: {{1: 2}}, 1: 0}", None),
    ("0xFFFFFFFFFFFFFFFFFFFFFFFF", Some("7.922816251426434e+28")),
    ("1_000.0", Some("1000.0")),
    (".5_5", Some("0.55")),
    ("1e5_", None),
    ("0_", None),
    ("0o8", None),
    (
        "{'k': [1, {'j': (2,)}], 'e': 'é', 'n': None}",
        Some("{\"k\": [1, {\"j\": [2]}], \"e\": \"é\", \"n\": null}"),
    ),
    ("[1, 'a' #c\n , 2]", Some("[1, \"a\", 2]")),
    ("- 1", Some("-1")),
    ("-\n1", None),
    ("(-\n1)", Some("-1")),
];

#[test]
fn literal_eval_matches_python() {
    for (src, expected) in LITERAL_EVAL {
        let got = literal_eval(src).map(|x| json_dumps(&x));
        assert_eq!(
            got.as_deref().ok(),
            *expected,
            "literal_eval({src:?}) = {got:?}"
        );
    }
}

#[test]
fn literal_eval_limits_and_messages() {
    // Python allows 200 nested brackets, not 201.
    let ok = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(literal_eval(&ok).is_ok());
    let deep = format!("{}{}", "[".repeat(201), "]".repeat(201));
    assert_eq!(
        literal_eval(&deep),
        Err("too many nested parentheses (<unknown>, line 1)".to_string())
    );
    let deep_sets = format!("{}{{1}}{}", "[".repeat(199), "]".repeat(199));
    assert!(literal_eval(&deep_sets).is_ok());
    // 4300 decimal digits is the limit for int literals (all-zero literals are exempt); ints
    // beyond u64 become floats, which fails once they overflow (approximation).
    assert!(literal_eval(&"9".repeat(300)).is_ok_and(|x| x.is_f64()));
    assert!(
        literal_eval(&"9".repeat(4300)).is_err_and(|e| e.contains("float that overflows to inf"))
    );
    assert!(literal_eval(&"9".repeat(4301)).is_err_and(|e| e.starts_with("Exceeds the limit")));
    assert_eq!(literal_eval(&"0".repeat(5000)), Ok(Value::from(0)));
    // Ints beyond u64 become floats (approximation).
    assert_eq!(
        literal_eval("0xFFFFFFFFFFFFFFFFFFFFFFFF").map(|x| json_dumps(&x)),
        Ok("7.922816251426434e+28".to_string())
    );
    assert_eq!(
        literal_eval("x"),
        Err("malformed node or string on line 1: <ast.Name object>".to_string())
    );
    assert_eq!(
        literal_eval("[1,\n 2,\n x]"),
        Err("malformed node or string on line 3: <ast.Name object>".to_string())
    );
    assert_eq!(
        literal_eval("{[1]: 2}"),
        Err("unhashable type: 'list'".to_string())
    );
    assert_eq!(
        literal_eval("'abc"),
        Err("unterminated string literal (<unknown>, line 1)".to_string())
    );
    // Sets keep first-occurrence order (Python's is hash order).
    assert_eq!(
        literal_eval("{'b', 'a', 'b'}").map(|x| json_dumps(&x)),
        Ok(r#"["b", "a"]"#.to_string())
    );
    // Dict key identity: the first equal key stays, with the last value.
    assert_eq!(
        literal_eval("{1: 'a', 1.0: 'b', True: 'c', '1': 'd'}").map(|x| json_dumps(&x)),
        Ok(r#"{"1": "d"}"#.to_string())
    );
}
