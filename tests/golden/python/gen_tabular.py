#!/usr/bin/env python3
"""Writes tabular.json: what pandas 2.3.3 (numpy 1.26.4) and tabulate 0.9.0 print for the tables
canvasc builds (YahooFinance's `to_markdown()`, ExeSQL's `to_markdown(index=False, floatfmt=".6f")`,
ExcelProcessor's `to_markdown(index=False)`), read by `value/src/py/tabular_tests.rs`.

Run with the library versions RAGFlow's image has (tabulate without `wcwidth`):

    python3 -m venv /tmp/tabular && /tmp/tabular/bin/pip install -r tests/golden/python/tabular-requirements.txt
    /tmp/tabular/bin/python tests/golden/python/gen_tabular.py > tests/golden/python/tabular.json

CI runs it and compares with the committed file (`.ci/run`). Nothing here is RAGFlow code; the
`exesql` pipeline repeats the pandas calls RAGFlow's ExeSQL makes on a result set.

Values that JSON cannot hold are tagged objects in the cases: `{"$nan": 0}` is `float("nan")`,
`{"$decimal": "1.50"}` a `decimal.Decimal`, `{"$datetime": "2024-01-05 03:04:05"}` a
`datetime.datetime`, `{"$date": "2024-01-05"}` a `datetime.date`.
"""

import datetime
import decimal
import json
import math
import sys

import numpy
import pandas as pd
import tabulate

assert pd.__version__ == "2.3.3", pd.__version__
assert numpy.__version__ == "1.26.4", numpy.__version__
assert tabulate.__version__ == "0.9.0", tabulate.__version__
assert tabulate.wcwidth is None, "RAGFlow's image has tabulate without wcwidth"

NAN = {"$nan": 0}


def dec(s):
    return {"$decimal": s}


def dt(s):
    return {"$datetime": s}


def date(s):
    return {"$date": s}


def py(v):
    """A case's value as the Python object it stands for."""
    if isinstance(v, dict):
        if "$nan" in v:
            return float("nan")
        if "$decimal" in v:
            return decimal.Decimal(v["$decimal"])
        if "$datetime" in v:
            return datetime.datetime.fromisoformat(v["$datetime"])
        if "$date" in v:
            return datetime.date.fromisoformat(v["$date"])
        return {k: py(x) for k, x in v.items()}
    if isinstance(v, list):
        return [py(x) for x in v]
    return v


def plain(v):
    """A record's value as JSON: NaN and infinities None, decimals floats, timestamps their str()."""
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, decimal.Decimal):
        return float(v)
    if v is pd.NaT:
        return None
    if isinstance(v, (pd.Timestamp, datetime.date)):
        return str(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if hasattr(v, "item"):
        return plain(v.item())
    return v


# pd.DataFrame(list of dicts), printed with `to_markdown()` (index shown, floatfmt "g").
RECORDS = {
    "ints": [{"a": 1, "b": 2}, {"a": 30, "b": 4}],
    "all_int_large": [{"a": 1234567, "b": 2}, {"a": 5, "b": 40000000}],
    "int_and_float_large": [{"a": 1234567, "b": 1.5}],
    "int_with_none": [{"a": 1}, {"a": None}],
    "int_with_missing": [{"a": 1, "b": "x"}, {"b": "y"}],
    "bools": [{"a": True}, {"a": False}],
    "bool_and_int_columns": [{"a": True, "b": 1}],
    "bool_with_none": [{"a": True}, {"a": None}],
    "bool_with_missing": [{"a": True, "b": 1}, {"b": 2}],
    "bool_and_int_cells": [{"a": True}, {"a": 5}],
    "true_string_and_int": [{"a": "True"}, {"a": 5}],
    "zero_padded_string": [{"a": "007"}, {"a": "12"}],
    "zero_padded_and_decimal_string": [{"a": "007"}, {"a": "1.50"}],
    "numeric_strings_mixed": [{"a": "3"}, {"a": "x"}, {"a": " 4 "}],
    "exponent_float": [{"a": 1.5e6}, {"a": 2.25}],
    "exponent_small": [{"a": 0.00001234}, {"a": 12.5}],
    "nan_inf_strings": [{"a": "nan"}, {"a": "inf"}, {"a": "-inf"}, {"a": "1.5"}],
    "infinity_word": [{"a": "Infinity"}, {"a": "1.5"}],
    "thousands": [{"a": "1,234.5"}, {"a": "x"}],
    "float_nan": [{"a": 1.5}, {"a": NAN}],
    "all_none": [{"a": None}, {"a": None}],
    "none_and_missing": [{"a": None}, {"b": None}],
    "strings_with_none": [{"a": "x"}, {"a": None}],
    "strings_with_missing": [{"a": "x", "b": 1}, {"b": 2}],
    "padded_strings": [{"a": "  left  "}, {"a": "x"}],
    "nested": [{"a": [1, "x"], "b": {"k": None}}],
    "multiline": [{"a": "one\ntwo", "b": 1}, {"a": "three", "b": 22}],
    "multiline_header": [{"a\nb": 1}],
    "wide_chars": [{"名前": "東京", "n": 1}],
    "big_uint": [{"a": 2**63}, {"a": 5}],
    "big_uint_and_negative": [{"a": 2**63}, {"a": -5}],
    "negative_zero": [{"a": -0.0}, {"a": 1.0}],
    "large_and_small_floats": [{"a": 1e16}, {"a": 1e-5}, {"a": 123456.5}, {"a": 999999.5}],
    "float_and_string": [{"a": 1.5}, {"a": "x"}],
    "decimal_values": [{"a": dec("1.50")}, {"a": dec("2")}],
    "datetimes": [{"d": dt("2024-01-05 03:04:05"), "n": 1}, {"d": dt("2024-02-01 00:00:00"), "n": 2}],
    "datetime_with_none": [{"d": dt("2024-01-05 00:00:00"), "n": 1}, {"d": None, "n": 2}],
    "dates": [{"d": date("2024-01-05"), "n": 1}],
    "empty_dict_row": [{}],
}

# pd.DataFrame(list of lists or scalars), printed with `to_markdown(index=False)` (ExcelProcessor).
ROWS = {
    "lists": [[1, "x"], [2, "y"]],
    "ragged_lists": [[1, "x", 2.5], [2]],
    "scalars": [1, 2.5, 3],
    "string_scalars": ["a", "b"],
}

# pd.DataFrame(records).to_markdown(index=False) and .head(n).
RECORDS_NO_INDEX = {
    "no_index_mixed": ([{"name": "a", "v": 1.25, "n": 3}, {"name": "bb", "v": 10.5, "n": 40}], None),
    "no_index_head": ([{"v": 1}, {"v": 2}, {"v": 3}], 2),
    "no_index_empty_columns": ([], None),
    "no_index_float_int_frame": ([{"a": 1, "b": 0.5}, {"a": 100000000, "b": 2.0}], None),
}

# ExeSQL: pd.DataFrame(tuples) named by the cursor's description, then its date formatting,
# `where(notnull, None)` and `to_markdown(index=False, floatfmt=".6f")`.
EXESQL = {
    "exesql_people": (
        ["id", "name", "score", "bonus", "active"],
        [[1, "alice", 2.5, 7, True], [22, "bob", None, None, False], [3, "héllo wörld", 0.125, 1, True]],
    ),
    "exesql_ints_only": (["id", "n"], [[1, 1234567], [2, 3]]),
    "exesql_ints_and_float": (["id", "x"], [[1, 0.5], [1234567, 2.0]]),
    "exesql_decimals": (["d", "s"], [[dec("1.50"), "x"], [dec("10.125"), "y"]]),
    "exesql_decimal_only": (["d"], [[dec("1.50")], [dec("-3")]]),
    "exesql_datetime": (["d", "n"], [[dt("2024-01-05 03:04:05"), 1], [dt("2023-12-31 00:00:00"), 2]]),
    "exesql_datetime_only": (["d"], [[dt("2024-01-05 03:04:05")]]),
    "exesql_datetime_with_none": (["d", "n"], [[dt("2024-01-05 03:04:05"), 1], [None, 2]]),
    "exesql_date": (["d", "n"], [[date("2024-01-05"), 1]]),
    "exesql_zero_padded_text": (["code", "n"], [["007", 1], ["12", 2]]),
    "exesql_float_only": (["x"], [[1.5e6], [2.25], [None]]),
    "exesql_bools_only": (["b"], [[True], [False]]),
    "exesql_all_null_column": (["a", "b"], [[None, 1], [None, 2]]),
    "exesql_text_with_null": (["a"], [["x"], [None]]),
}

# pd.Series(dict).to_markdown() (YahooFinance's info).
SERIES = {
    "series_mixed": {"name": "Apple", "price": 189.5, "volume": 1234567, "flag": True},
    "series_numbers": {"a": 1, "b": 2.5},
    "series_nested": {"officers": [{"name": "x"}], "n": None},
}

# tabulate(rows, headers, tablefmt="pipe", floatfmt=…) of plain Python values.
TABULATE = {
    "tab_strings_and_numbers": (["h1", "h2"], [["x", 1], ["yy", 2.5]], "g"),
    "tab_fewer_headers": (["h"], [[1, "x"], [2, "y"]], "g"),
    "tab_missing": (["a", "b"], [[None, 1.5], ["x", None]], "g"),
    "tab_fixed": (["a"], [[1.5], [10], [None]], ".6f"),
    "tab_true_strings": (["a"], [["True"], ["False"]], "g"),
    "tab_bytes_like_text": (["a"], [["b'x'"]], "g"),
    "tab_no_rows": (["a", "bb"], [], "g"),
}

AFTERPOINT = [
    "1.5e+06", "1e-05", "2.25", "10", "-3", "nan", "inf", "-inf", "Infinity", "1,234.5", "1,234",
    "x", "", "1.", ".5", "  1.25  ", "1_000.5", "0x10", "1E5", "12.5e-3",
]

FLOATS = [
    0.0, -0.0, 1.0, 100.0, 3089000000000.0, 0.904, 40586500.0, 0.0001, 0.00001234, 123456.5,
    999999.5, 413.0, 1.5e6, 1234567.0, 1e16, 1e-5, -1.25, 2.5, 0.1 + 0.2, 1e300, 5e-324,
    float("inf"), float("-inf"), float("nan"), 123456789.123, 0.000123456789,
]


def frame_case(df, index=True, floatfmt="g"):
    return {
        "markdown": df.to_markdown(index=index, floatfmt=floatfmt),
        "dtypes": [str(t) for t in df.dtypes],
        "records": plain(df.to_dict(orient="records")),
    }


def exesql(columns, tuples):
    df = pd.DataFrame([tuple(py(v) for v in row) for row in tuples])
    df.columns = columns
    for col in df.columns:
        if pd.api.types.is_datetime64_any_dtype(df[col]):
            df[col] = df[col].dt.strftime("%Y-%m-%d")
    df = df.where(pd.notnull(df), None)
    return {
        "markdown": df.to_markdown(index=False, floatfmt=".6f"),
        "dtypes": [str(t) for t in df.dtypes],
        "records": plain(df.to_dict(orient="records")),
    }


def bits(f):
    import struct

    return str(struct.unpack("<Q", struct.pack("<d", f))[0])


def main():
    frames = []
    for name, data in RECORDS.items():
        frames.append({"name": name, "kind": "records", "data": data, **frame_case(pd.DataFrame(py(data)))})
    for name, data in ROWS.items():
        frames.append({"name": name, "kind": "rows", "data": data, "index": False,
                       **frame_case(pd.DataFrame(py(data)), index=False)})
    for name, (data, head) in RECORDS_NO_INDEX.items():
        df = pd.DataFrame(py(data))
        if head is not None:
            df = df.head(head)
        frames.append({"name": name, "kind": "records", "data": data, "index": False, "head": head,
                       **frame_case(df, index=False)})
    for name, (columns, tuples) in EXESQL.items():
        frames.append({"name": name, "kind": "exesql", "columns": columns, "data": tuples,
                       **exesql(columns, tuples)})
    for name, data in SERIES.items():
        frames.append({"name": name, "kind": "series", "data": data,
                       "markdown": pd.Series(py(data)).to_markdown()})
    tables = [
        {"name": name, "headers": headers, "rows": rows, "floatfmt": floatfmt,
         "markdown": tabulate.tabulate(py(rows), headers, tablefmt="pipe", floatfmt=floatfmt)}
        for name, (headers, rows, floatfmt) in TABULATE.items()
    ]
    out = {
        "versions": {"pandas": pd.__version__, "numpy": numpy.__version__, "tabulate": tabulate.__version__,
                     "python": sys.version.split()[0]},
        "frames": frames,
        "tables": tables,
        "afterpoint": [{"text": s, "digits": tabulate._afterpoint(s)} for s in AFTERPOINT],
        "format": [
            {"bits": bits(f), "g": format(f, "g"), ".6f": format(f, ".6f")} for f in FLOATS
        ],
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


main()
