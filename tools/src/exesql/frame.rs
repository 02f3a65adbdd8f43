//! One statement's rows as RAGFlow's ExeSQL turns them into output: `pd.DataFrame(rows)` named
//! by the cursor's description, each datetime column turned into `%Y-%m-%d` text, then
//! `df.where(pd.notnull(df), None)`; `convert_decimals(df.to_dict(orient="records"))` is the
//! `json` output and `df.to_markdown(index=False, floatfmt=".6f")` the text.
//!
//! The pandas and tabulate rules are `canvasc_value::py::pandas`, shared with YahooFinance and
//! ExcelProcessor (and checked there against pandas itself); this module only strings together
//! the calls ExeSQL makes.

pub use canvasc_value::py::pandas::Cell;
use canvasc_value::py::pandas::DataFrame;
use canvasc_value::py::FloatFormat;
use canvasc_value::Json;

/// The rows of one statement, as RAGFlow has them once it has formatted the dates.
pub struct Frame(DataFrame);

impl Frame {
    /// The cursor's rows (as the Python driver types them) under the description's names.
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> Frame {
        let mut frame = DataFrame::new(columns, rows);
        frame.format_dates_as_days();
        frame.where_notnull_none();
        Frame(frame)
    }

    /// `convert_decimals(df.to_dict(orient="records"))`: NaN and infinities `null`, decimals
    /// floats. With duplicate column names the last one wins, as in a dict.
    pub fn records(&self) -> Vec<Json> {
        self.0.records()
    }

    /// `df.to_markdown(index=False, floatfmt=".6f")`.
    pub fn markdown(&self) -> String {
        self.0.to_markdown(false, FloatFormat::Fixed(6))
    }
}
