//! The spreadsheets the ExcelProcessor cases read, made here (rust_xlsxwriter, plain CSV text)
//! so the test and RAGFlow's engine (through `examples/excel_fixtures.rs` and
//! `tests/excel/oracle.py`) read the very same files.

use rust_xlsxwriter::Workbook;

/// A cell of a fixture sheet.
pub enum C {
    N(f64),
    S(&'static str),
    B(bool),
    E,
}

fn sheet(workbook: &mut Workbook, name: &str, rows: &[Vec<C>]) -> Result<(), String> {
    let ws = workbook.add_worksheet();
    ws.set_name(name).map_err(|e| e.to_string())?;
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let (r, c) = (r as u32, c as u16);
            match cell {
                C::N(n) => ws.write_number(r, c, *n).map(|_| ()),
                C::S(s) => ws.write_string(r, c, *s).map(|_| ()),
                C::B(b) => ws.write_boolean(r, c, *b).map(|_| ()),
                C::E => Ok(()),
            }
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn book(sheets: &[(&str, Vec<Vec<C>>)]) -> Result<Vec<u8>, String> {
    let mut workbook = Workbook::new();
    for (name, rows) in sheets {
        sheet(&mut workbook, name, rows)?;
    }
    workbook.save_to_buffer().map_err(|e| e.to_string())
}

/// Every fixture file: name and bytes.
pub fn files() -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    use C::*;
    let sales = book(&[
        (
            "Sales",
            vec![
                vec![S("id"), S("product"), S("qty"), S("price"), S("note")],
                vec![N(1.0), S("Widget"), N(3.0), N(2.5), S("first")],
                vec![N(2.0), S("Gadget"), N(10.0), N(1.25), E],
                vec![N(3.0), S("Gizmo"), E, N(4.0), S("third, with comma")],
                vec![N(4.0), S("Doohickey"), N(7.0), N(12.75), S("last")],
            ],
        ),
        (
            "People",
            vec![
                vec![S("name"), S("active"), S("age")],
                vec![S("Ann"), B(true), N(31.0)],
                vec![S("Bo"), B(false), N(45.0)],
                vec![S("Cy"), B(true), N(28.0)],
            ],
        ),
    ])?;
    let more = book(&[(
        "Data",
        vec![
            vec![S("id"), S("product"), S("qty"), S("region")],
            vec![N(5.0), S("Sprocket"), N(2.0), S("EU")],
            vec![N(2.0), S("Gadget"), N(1.0), S("US")],
            vec![N(6.0), S("Flange"), N(8.0), S("APAC")],
        ],
    )])?;
    let mut wide_rows = vec![["c1", "c2", "c3", "c4", "c5", "c6", "c7"]
        .map(S)
        .into_iter()
        .collect::<Vec<C>>()];
    for r in 0..12 {
        wide_rows.push((0..7).map(|c| N((r * 7 + c) as f64 * 1.5)).collect());
    }
    let wide = book(&[("Wide", wide_rows)])?;
    let csv =
        b"id,city,temp,flag\n1,Berlin,3.5,True\n2,\"Paris, FR\",,False\n3,Tokyo,12,True\n".to_vec();
    Ok(vec![
        ("sales.xlsx", sales),
        ("more.xlsx", more),
        ("wide.xlsx", wide),
        ("table.csv", csv),
    ])
}
