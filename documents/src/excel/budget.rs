//! How much spreadsheet one ExcelProcessor call may read.
//!
//! An XLSX is a zip of XML: under a megabyte on the wire can inflate to gigabytes, name a
//! million-by-sixteen-thousand cell range with two cells, or have a million cells repeat one
//! long shared string. The reader checks every zip member's declared and actual inflated size
//! before the workbook is opened, and counts cells, rows and their text while it streams each
//! sheet, so a file over the budget is refused with an error naming ExcelProcessor before it
//! takes the memory; a CSV is counted the same way.

use crate::image_data::grouped;
use std::fmt;

/// The limits of one ExcelProcessor call (all of its files together: what they read stays in
/// memory until the component has set its outputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SheetBudget {
    /// Cells of the tables read: rows × columns of each sheet as pandas holds it (blank
    /// cells included), and the cells the sheet's XML lists.
    pub cells: u64,
    /// Rows of the tables read.
    pub rows: u64,
    /// Bytes the files expand to: the inflated zip members of a workbook, and the text its
    /// cells take (a cell that names a shared string copies it).
    pub bytes: u64,
}

impl Default for SheetBudget {
    /// 100,000 cells (10,000 rows of ten columns), 100,000 rows, 64 MiB. What a call reads
    /// does not stay in the reader: its rows become the `data` output, and through a server
    /// that value is copied into the node's event, the run's checkpoint and the saved
    /// session. Runs at this edge, one after another, keep `canvasc serve` under 256 MiB
    /// above idle (`bench/src/bin/abuse_memory.rs`); a million cells peaked at 1.4 GiB, and
    /// 150,000 at 260–400 MiB. Deployments that need more set `CANVASC_SHEET_MAX_*`.
    fn default() -> Self {
        SheetBudget {
            cells: 100_000,
            rows: 100_000,
            bytes: 64 * 1024 * 1024,
        }
    }
}

/// A spreadsheet over the budget: the file and why. Displayed as RAGFlow words a component's
/// own refusals, `[ExcelProcessor] …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SheetRefused {
    pub file: String,
    pub reason: String,
}

impl fmt::Display for SheetRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[ExcelProcessor] {} is too large to read: {}",
            self.file, self.reason
        )
    }
}

impl std::error::Error for SheetRefused {}

/// What is left of a call's budget as its files are read.
#[derive(Debug, Clone)]
pub struct Allowance {
    budget: SheetBudget,
    cells: u64,
    rows: u64,
    bytes: u64,
}

impl Allowance {
    pub fn new(budget: SheetBudget) -> Self {
        Allowance {
            budget,
            cells: 0,
            rows: 0,
            bytes: 0,
        }
    }

    pub fn budget(&self) -> SheetBudget {
        self.budget
    }

    /// Bytes still allowed.
    pub fn bytes_left(&self) -> u64 {
        self.budget.bytes.saturating_sub(self.bytes)
    }

    /// Spends `n` bytes, or says why not.
    pub fn spend_bytes(&mut self, n: u64, what: &str) -> Result<(), String> {
        if n > self.bytes_left() {
            return Err(format!(
                "{what} more than the {} bytes a call may read",
                grouped(self.budget.bytes)
            ));
        }
        self.bytes += n;
        Ok(())
    }

    /// Whether a sheet of `rows` × `columns` (with `listed` cells in its file) still fits,
    /// counting what earlier sheets spent; `Err` says which limit it passes.
    pub fn check_table(&self, rows: u64, columns: u64, listed: u64) -> Result<(), String> {
        let budget = self.budget;
        if self.rows + rows > budget.rows {
            return Err(format!(
                "more than the {} rows a call may read",
                grouped(budget.rows)
            ));
        }
        let cells = rows.saturating_mul(columns).max(listed);
        if self.cells.saturating_add(cells) > budget.cells {
            return Err(format!(
                "more than the {} cells a call may read",
                grouped(budget.cells)
            ));
        }
        Ok(())
    }

    /// Spends a sheet that [`Allowance::check_table`] let through.
    pub fn spend_table(&mut self, rows: u64, columns: u64, listed: u64) {
        self.rows += rows;
        self.cells += rows.saturating_mul(columns).max(listed);
    }
}
