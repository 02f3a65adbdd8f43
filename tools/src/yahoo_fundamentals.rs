//! The tables YahooFinance's `financials`, `balance_sheet` and `cash_flow_statement` options
//! print (`agent/tools/yahoofinance.py`: `pd.DataFrame(Ticker.calendar)`, `Ticker.balance_sheet`,
//! `Ticker.cashflow` and their quarterly twins, each through `to_markdown()`), built from
//! Yahoo's answers the way `yfinance` 0.2.65 (the version RAGFlow pins) builds them:
//!
//! * the calendar from quoteSummary's `calendarEvents` module (`Quote._fetch_calendar`): dates
//!   as `datetime.date`, the earnings dates a list the other entries are broadcast along;
//! * a statement from the fundamentals time series
//!   (`Financials._get_financials_time_series`): one row per requested key that has data, in
//!   the library's key order, one column per reported date (newest first), every value a
//!   float, row names made readable by `utils.camel2title(…, acronyms=["PPE"])`.
//!
//! Anything `yfinance` cannot make a statement of (a missing or malformed answer, a `null`
//! entry in a series, an unparsable date or value) gives the empty frame, as the library's
//! `except Exception` does; the empty frame prints as the empty string.

use canvasc_value::py::pandas::{Cell, DataFrame as Frame};
use canvasc_value::{py, Json};

/// `const.fundamentals_keys["balance-sheet"]` of yfinance 0.2.65, in its order.
pub const BALANCE_SHEET_KEYS: &[&str] = &[
    "TreasurySharesNumber",
    "PreferredSharesNumber",
    "OrdinarySharesNumber",
    "ShareIssued",
    "NetDebt",
    "TotalDebt",
    "TangibleBookValue",
    "InvestedCapital",
    "WorkingCapital",
    "NetTangibleAssets",
    "CapitalLeaseObligations",
    "CommonStockEquity",
    "PreferredStockEquity",
    "TotalCapitalization",
    "TotalEquityGrossMinorityInterest",
    "MinorityInterest",
    "StockholdersEquity",
    "OtherEquityInterest",
    "GainsLossesNotAffectingRetainedEarnings",
    "OtherEquityAdjustments",
    "FixedAssetsRevaluationReserve",
    "ForeignCurrencyTranslationAdjustments",
    "MinimumPensionLiabilities",
    "UnrealizedGainLoss",
    "TreasuryStock",
    "RetainedEarnings",
    "AdditionalPaidInCapital",
    "CapitalStock",
    "OtherCapitalStock",
    "CommonStock",
    "PreferredStock",
    "TotalPartnershipCapital",
    "GeneralPartnershipCapital",
    "LimitedPartnershipCapital",
    "TotalLiabilitiesNetMinorityInterest",
    "TotalNonCurrentLiabilitiesNetMinorityInterest",
    "OtherNonCurrentLiabilities",
    "LiabilitiesHeldforSaleNonCurrent",
    "RestrictedCommonStock",
    "PreferredSecuritiesOutsideStockEquity",
    "DerivativeProductLiabilities",
    "EmployeeBenefits",
    "NonCurrentPensionAndOtherPostretirementBenefitPlans",
    "NonCurrentAccruedExpenses",
    "DuetoRelatedPartiesNonCurrent",
    "TradeandOtherPayablesNonCurrent",
    "NonCurrentDeferredLiabilities",
    "NonCurrentDeferredRevenue",
    "NonCurrentDeferredTaxesLiabilities",
    "LongTermDebtAndCapitalLeaseObligation",
    "LongTermCapitalLeaseObligation",
    "LongTermDebt",
    "LongTermProvisions",
    "CurrentLiabilities",
    "OtherCurrentLiabilities",
    "CurrentDeferredLiabilities",
    "CurrentDeferredRevenue",
    "CurrentDeferredTaxesLiabilities",
    "CurrentDebtAndCapitalLeaseObligation",
    "CurrentCapitalLeaseObligation",
    "CurrentDebt",
    "OtherCurrentBorrowings",
    "LineOfCredit",
    "CommercialPaper",
    "CurrentNotesPayable",
    "PensionandOtherPostRetirementBenefitPlansCurrent",
    "CurrentProvisions",
    "PayablesAndAccruedExpenses",
    "CurrentAccruedExpenses",
    "InterestPayable",
    "Payables",
    "OtherPayable",
    "DuetoRelatedPartiesCurrent",
    "DividendsPayable",
    "TotalTaxPayable",
    "IncomeTaxPayable",
    "AccountsPayable",
    "TotalAssets",
    "TotalNonCurrentAssets",
    "OtherNonCurrentAssets",
    "DefinedPensionBenefit",
    "NonCurrentPrepaidAssets",
    "NonCurrentDeferredAssets",
    "NonCurrentDeferredTaxesAssets",
    "DuefromRelatedPartiesNonCurrent",
    "NonCurrentNoteReceivables",
    "NonCurrentAccountsReceivable",
    "FinancialAssets",
    "InvestmentsAndAdvances",
    "OtherInvestments",
    "InvestmentinFinancialAssets",
    "HeldToMaturitySecurities",
    "AvailableForSaleSecurities",
    "FinancialAssetsDesignatedasFairValueThroughProfitorLossTotal",
    "TradingSecurities",
    "LongTermEquityInvestment",
    "InvestmentsinJointVenturesatCost",
    "InvestmentsInOtherVenturesUnderEquityMethod",
    "InvestmentsinAssociatesatCost",
    "InvestmentsinSubsidiariesatCost",
    "InvestmentProperties",
    "GoodwillAndOtherIntangibleAssets",
    "OtherIntangibleAssets",
    "Goodwill",
    "NetPPE",
    "AccumulatedDepreciation",
    "GrossPPE",
    "Leases",
    "ConstructionInProgress",
    "OtherProperties",
    "MachineryFurnitureEquipment",
    "BuildingsAndImprovements",
    "LandAndImprovements",
    "Properties",
    "CurrentAssets",
    "OtherCurrentAssets",
    "HedgingAssetsCurrent",
    "AssetsHeldForSaleCurrent",
    "CurrentDeferredAssets",
    "CurrentDeferredTaxesAssets",
    "RestrictedCash",
    "PrepaidAssets",
    "Inventory",
    "InventoriesAdjustmentsAllowances",
    "OtherInventories",
    "FinishedGoods",
    "WorkInProcess",
    "RawMaterials",
    "Receivables",
    "ReceivablesAdjustmentsAllowances",
    "OtherReceivables",
    "DuefromRelatedPartiesCurrent",
    "TaxesReceivable",
    "AccruedInterestReceivable",
    "NotesReceivable",
    "LoansReceivable",
    "AccountsReceivable",
    "AllowanceForDoubtfulAccountsReceivable",
    "GrossAccountsReceivable",
    "CashCashEquivalentsAndShortTermInvestments",
    "OtherShortTermInvestments",
    "CashAndCashEquivalents",
    "CashEquivalents",
    "CashFinancial",
    "CashCashEquivalentsAndFederalFundsSold",
];

/// `const.fundamentals_keys["cash-flow"]` of yfinance 0.2.65, in its order.
pub const CASH_FLOW_KEYS: &[&str] = &[
    "ForeignSales",
    "DomesticSales",
    "AdjustedGeographySegmentData",
    "FreeCashFlow",
    "RepurchaseOfCapitalStock",
    "RepaymentOfDebt",
    "IssuanceOfDebt",
    "IssuanceOfCapitalStock",
    "CapitalExpenditure",
    "InterestPaidSupplementalData",
    "IncomeTaxPaidSupplementalData",
    "EndCashPosition",
    "OtherCashAdjustmentOutsideChangeinCash",
    "BeginningCashPosition",
    "EffectOfExchangeRateChanges",
    "ChangesInCash",
    "OtherCashAdjustmentInsideChangeinCash",
    "CashFlowFromDiscontinuedOperation",
    "FinancingCashFlow",
    "CashFromDiscontinuedFinancingActivities",
    "CashFlowFromContinuingFinancingActivities",
    "NetOtherFinancingCharges",
    "InterestPaidCFF",
    "ProceedsFromStockOptionExercised",
    "CashDividendsPaid",
    "PreferredStockDividendPaid",
    "CommonStockDividendPaid",
    "NetPreferredStockIssuance",
    "PreferredStockPayments",
    "PreferredStockIssuance",
    "NetCommonStockIssuance",
    "CommonStockPayments",
    "CommonStockIssuance",
    "NetIssuancePaymentsOfDebt",
    "NetShortTermDebtIssuance",
    "ShortTermDebtPayments",
    "ShortTermDebtIssuance",
    "NetLongTermDebtIssuance",
    "LongTermDebtPayments",
    "LongTermDebtIssuance",
    "InvestingCashFlow",
    "CashFromDiscontinuedInvestingActivities",
    "CashFlowFromContinuingInvestingActivities",
    "NetOtherInvestingChanges",
    "InterestReceivedCFI",
    "DividendsReceivedCFI",
    "NetInvestmentPurchaseAndSale",
    "SaleOfInvestment",
    "PurchaseOfInvestment",
    "NetInvestmentPropertiesPurchaseAndSale",
    "SaleOfInvestmentProperties",
    "PurchaseOfInvestmentProperties",
    "NetBusinessPurchaseAndSale",
    "SaleOfBusiness",
    "PurchaseOfBusiness",
    "NetIntangiblesPurchaseAndSale",
    "SaleOfIntangibles",
    "PurchaseOfIntangibles",
    "NetPPEPurchaseAndSale",
    "SaleOfPPE",
    "PurchaseOfPPE",
    "CapitalExpenditureReported",
    "OperatingCashFlow",
    "CashFromDiscontinuedOperatingActivities",
    "CashFlowFromContinuingOperatingActivities",
    "TaxesRefundPaid",
    "InterestReceivedCFO",
    "InterestPaidCFO",
    "DividendReceivedCFO",
    "DividendPaidCFO",
    "ChangeInWorkingCapital",
    "ChangeInOtherWorkingCapital",
    "ChangeInOtherCurrentLiabilities",
    "ChangeInOtherCurrentAssets",
    "ChangeInPayablesAndAccruedExpense",
    "ChangeInAccruedExpense",
    "ChangeInInterestPayable",
    "ChangeInPayable",
    "ChangeInDividendPayable",
    "ChangeInAccountPayable",
    "ChangeInTaxPayable",
    "ChangeInIncomeTaxPayable",
    "ChangeInPrepaidAssets",
    "ChangeInInventory",
    "ChangeInReceivables",
    "ChangesInAccountReceivables",
    "OtherNonCashItems",
    "ExcessTaxBenefitFromStockBasedCompensation",
    "StockBasedCompensation",
    "UnrealizedGainLossOnInvestmentSecurities",
    "ProvisionandWriteOffofAssets",
    "AssetImpairmentCharge",
    "AmortizationOfSecurities",
    "DeferredTax",
    "DeferredIncomeTax",
    "DepreciationAmortizationDepletion",
    "Depletion",
    "DepreciationAndAmortization",
    "AmortizationCashFlow",
    "AmortizationOfIntangibles",
    "Depreciation",
    "OperatingGainsLosses",
    "PensionAndEmployeeBenefitExpense",
    "EarningsLossesFromEquityInvestments",
    "GainLossOnInvestmentSecurities",
    "NetForeignCurrencyExchangeGainLoss",
    "GainLossOnSaleOfPPE",
    "GainLossOnSaleOfBusiness",
    "NetIncomeFromContinuingOperations",
    "CashFlowsfromusedinOperatingActivitiesDirect",
    "TaxesRefundPaidDirect",
    "InterestReceivedDirect",
    "InterestPaidDirect",
    "DividendsReceivedDirect",
    "DividendsPaidDirect",
    "ClassesofCashPayments",
    "OtherCashPaymentsfromOperatingActivities",
    "PaymentsonBehalfofEmployees",
    "PaymentstoSuppliersforGoodsandServices",
    "ClassesofCashReceiptsfromOperatingActivities",
    "OtherCashReceiptsfromOperatingActivities",
    "ReceiptsfromGovernmentGrants",
    "ReceiptsfromCustomers",
];

/// `datetime.datetime(2016, 12, 31).timestamp()` with the clock on UTC: the library's
/// `period1` (Yahoo answers at most four years or five quarters whatever the start).
pub const PERIOD1: i64 = 1_483_142_400;

/// `pd.Timestamp.utcnow().ceil("D")` in seconds: the library's `period2`.
pub fn period2(now_seconds: i64) -> i64 {
    let day = 86_400;
    now_seconds.div_euclid(day) * day
        + if now_seconds.rem_euclid(day) == 0 {
            0
        } else {
            day
        }
}

/// The `type` query of a statement: every key with its timescale (`annual`, `quarterly`).
pub fn type_query(timescale: &str, keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("{timescale}{k}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`; a dozen lines instead of a date crate for one conversion).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day count of a proleptic Gregorian date (`days_from_civil`, the inverse of the above).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `str(datetime.date.fromtimestamp(ts))` with the clock on UTC.
fn date_text(ts: f64) -> Option<String> {
    if !ts.is_finite() {
        return None;
    }
    let (y, m, d) = civil_from_days((ts.floor() as i64).div_euclid(86_400));
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// `str(pd.to_datetime(ts, unit="s"))`: a naive timestamp.
fn timestamp_text(ts: i64) -> String {
    let (y, m, d) = civil_from_days(ts.div_euclid(86_400));
    let s = ts.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        (s % 3600) / 60,
        s % 60
    )
}

/// `pd.Timestamp(asOfDate)` in seconds, for the ISO dates Yahoo reports (`YYYY-MM-DD`).
fn as_of_seconds(date: &str) -> Option<i64> {
    let mut parts = date.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    (civil_from_days(days) == (y, m, d)).then_some(days * 86_400)
}

/// A reported value as `astype("float")` makes it: numbers, `None` as NaN, numeric text.
fn reported_float(v: &Json) -> Option<f64> {
    match v {
        Json::Null => Some(f64::NAN),
        Json::Bool(b) => Some(f64::from(u8::from(*b))),
        Json::Number(n) => n.as_f64(),
        Json::String(s) => py::float_of_str(s).ok(),
        _ => None,
    }
}

/// Python's `str.title()`: a cased character after a cased one is lowered, any other raised.
fn title(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut prev_cased = false;
    for c in word.chars() {
        let cased = c.is_uppercase() || c.is_lowercase();
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        prev_cased = cased;
    }
    out
}

/// `utils.camel2title(name, sep=" ", acronyms=["PPE"])`: a space between a lower- and an
/// upper-case letter and after `PPE` before a capitalised word; every word but `PPE`
/// title-cased.
pub fn camel2title(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut spaced = String::with_capacity(name.len() + 8);
    for (i, c) in chars.iter().enumerate() {
        spaced.push(*c);
        if c.is_ascii_lowercase() && chars.get(i + 1).is_some_and(char::is_ascii_uppercase) {
            spaced.push(' ');
        }
    }
    // `re.sub("(PPE)([A-Z][a-z])", r"\1 \2")`, left to right without overlaps.
    let mut out = String::with_capacity(spaced.len() + 4);
    let mut rest = spaced.as_str();
    while let Some(pos) = rest.find("PPE") {
        let after = &rest[pos + 3..];
        let mut next = after.chars();
        let split = matches!(
            (next.next(), next.next()),
            (Some(a), Some(b)) if a.is_ascii_uppercase() && b.is_ascii_lowercase()
        );
        out.push_str(&rest[..pos + 3]);
        if split {
            out.push(' ');
        }
        rest = after;
    }
    out.push_str(rest);
    out.split(' ')
        .map(|w| if w == "PPE" { w.to_string() } else { title(w) })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One series of an answer: its type (`annualTotalAssets`) and its values by timestamp.
type Series = (String, Vec<(i64, f64)>);

/// The statement's series and sorted timestamps, or `None` where the library's reshaping
/// raises.
fn reshape(answer: &Json) -> Option<(Vec<Series>, Vec<i64>)> {
    let results = answer.pointer("/timeseries/result")?.as_array()?;
    let mut stamps: Vec<i64> = Vec::new();
    let mut data: Vec<(String, &Vec<Json>)> = Vec::new();
    for entry in results {
        let entry = entry.as_object()?;
        // `del d["meta"]`.
        entry.get("meta")?;
        for (k, v) in entry.iter().filter(|(k, _)| *k != "meta") {
            if k == "timestamp" {
                for t in v.as_array()? {
                    stamps.push(t.as_i64()?);
                }
            } else {
                let list = v.as_array()?;
                match data.iter_mut().find(|(name, _)| name == k) {
                    Some(slot) => slot.1 = list,
                    None => data.push((k.clone(), list)),
                }
            }
        }
    }
    stamps.sort_unstable();
    stamps.dedup();
    let mut rows = Vec::new();
    for (k, list) in data {
        // `{pd.Timestamp(x["asOfDate"]): x["reportedValue"]["raw"] for x in v}`.
        let mut values: Vec<(i64, f64)> = Vec::new();
        for x in list {
            let at = as_of_seconds(x.get("asOfDate")?.as_str()?)?;
            let raw = reported_float(x.get("reportedValue")?.get("raw")?)?;
            match values.iter_mut().find(|(t, _)| *t == at) {
                Some(slot) => slot.1 = raw,
                None => values.push((at, raw)),
            }
        }
        rows.push((k, values));
    }
    Some((rows, stamps))
}

fn empty_frame() -> Frame {
    Frame::default()
}

/// A statement (`Ticker.balance_sheet`, `Ticker.quarterly_cashflow`, …) from a fundamentals
/// time-series answer for `timescale` (`annual`, `quarterly`) and the library's `keys`.
pub fn statement_frame(answer: &Json, timescale: &str, keys: &[&str]) -> Frame {
    let Some((rows, stamps)) = reshape(answer) else {
        return empty_frame();
    };
    // `df.index.str.replace("^" + timescale, "")`, then `df.reindex(keys present)`, which
    // raises on duplicate labels.
    let names: Vec<String> = rows
        .iter()
        .map(|(k, _)| k.strip_prefix(timescale).unwrap_or(k).to_string())
        .collect();
    let mut seen = std::collections::HashSet::new();
    if !names.iter().all(|n| seen.insert(n.as_str())) {
        return empty_frame();
    }
    let columns: Vec<i64> = stamps.iter().rev().copied().collect();
    let mut index = Vec::new();
    let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); columns.len()];
    for key in keys {
        let Some(pos) = names.iter().position(|n| n == key) else {
            continue;
        };
        index.push(Cell::Str(camel2title(key)));
        for (col, at) in cells.iter_mut().zip(&columns) {
            let v = rows[pos]
                .1
                .iter()
                .find(|(t, _)| t == at)
                .map_or(f64::NAN, |(_, v)| *v);
            col.push(Cell::Float(v));
        }
    }
    Frame::from_columns(columns.iter().map(|t| timestamp_text(*t)).collect(), cells)
        .with_index(None, index)
}

/// A calendar entry as the library stores it: a date for the two dividend dates and each
/// earnings date, the raw value for the estimates.
fn date_cell(v: &Json, field: &str) -> Result<Cell, String> {
    let ts = v.as_f64().ok_or_else(|| {
        format!(
            "'{}' object cannot be interpreted as an integer ({field})",
            py::type_name(v)
        )
    })?;
    date_text(ts)
        .map(Cell::Str)
        .ok_or_else(|| format!("cannot convert float NaN to integer ({field})"))
}

/// `pd.DataFrame(Ticker.calendar)` from a quoteSummary answer for `calendarEvents`; `None`
/// stands for the library's empty calendar (the request failed with an HTTP error).
pub fn calendar_frame(summary: Option<&Json>) -> Result<Frame, String> {
    let Some(summary) = summary else {
        return Ok(empty_frame());
    };
    let Some(events) = summary
        .pointer("/quoteSummary/result/0/calendarEvents")
        .and_then(Json::as_object)
    else {
        return Err(format!(
            "Failed to parse json response from Yahoo Finance: {}",
            py::str_of(summary)
        ));
    };
    // Entries in the library's order; `None` is a scalar to broadcast.
    let mut scalars: Vec<(&str, Cell)> = Vec::new();
    let mut dates: Option<Vec<Cell>> = None;
    if let Some(v) = events.get("dividendDate") {
        scalars.push(("Dividend Date", date_cell(v, "dividendDate")?));
    }
    if let Some(v) = events.get("exDividendDate") {
        scalars.push(("Ex-Dividend Date", date_cell(v, "exDividendDate")?));
    }
    let earnings = events.get("earnings").filter(|e| !e.is_null());
    let mut estimates: Vec<(&str, Cell)> = Vec::new();
    if let Some(e) = earnings {
        let list = match e.get("earningsDate") {
            None => Vec::new(),
            Some(Json::Array(a)) => a.clone(),
            Some(other) => {
                return Err(format!(
                    "'{}' object is not iterable (earningsDate)",
                    py::type_name(other)
                ))
            }
        };
        dates = Some(
            list.iter()
                .map(|d| date_cell(d, "earningsDate"))
                .collect::<Result<_, _>>()?,
        );
        for (name, key) in [
            ("Earnings High", "earningsHigh"),
            ("Earnings Low", "earningsLow"),
            ("Earnings Average", "earningsAverage"),
            ("Revenue High", "revenueHigh"),
            ("Revenue Low", "revenueLow"),
            ("Revenue Average", "revenueAverage"),
        ] {
            estimates.push((name, e.get(key).map_or(Cell::None, Cell::of)));
        }
    }
    let Some(dates) = dates else {
        if scalars.is_empty() {
            return Ok(empty_frame());
        }
        return Err("If using all scalar values, you must pass an index".into());
    };
    let rows = dates.len();
    let mut columns = Vec::new();
    let mut cells = Vec::new();
    let broadcast = |c: &Cell| vec![c.clone(); rows];
    for (name, c) in &scalars {
        columns.push(name.to_string());
        cells.push(broadcast(c));
    }
    columns.push("Earnings Date".to_string());
    cells.push(dates);
    for (name, c) in &estimates {
        columns.push(name.to_string());
        cells.push(broadcast(c));
    }
    Ok(Frame::from_columns(columns, cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_names_as_camel2title_makes_them() {
        for (key, want) in [
            ("TotalAssets", "Total Assets"),
            ("NetPPE", "Net PPE"),
            ("NetPPEPurchaseAndSale", "Net PPE Purchase And Sale"),
            ("GainLossOnSaleOfPPE", "Gain Loss On Sale Of PPE"),
            ("InterestPaidCFF", "Interest Paid Cff"),
            (
                "DuetoRelatedPartiesNonCurrent",
                "Dueto Related Parties Non Current",
            ),
            (
                "FinancialAssetsDesignatedasFairValueThroughProfitorLossTotal",
                "Financial Assets Designatedas Fair Value Through Profitor Loss Total",
            ),
            (
                "CashCashEquivalentsAndShortTermInvestments",
                "Cash Cash Equivalents And Short Term Investments",
            ),
        ] {
            assert_eq!(camel2title(key), want, "{key}");
        }
    }

    #[test]
    fn periods_and_dates() {
        assert_eq!(period2(1_764_201_600), 1_764_201_600);
        assert_eq!(period2(1_764_201_601), 1_764_288_000);
        assert_eq!(as_of_seconds("2024-09-30"), Some(1_727_654_400));
        assert_eq!(as_of_seconds("2024-02-30"), None);
        assert_eq!(timestamp_text(1_727_654_400), "2024-09-30 00:00:00");
        assert_eq!(date_text(1_761_854_400.0).as_deref(), Some("2025-10-30"));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
    }

    /// Expected texts printed by pandas 2.3.3 / tabulate 0.9.0 for `pd.DataFrame(calendar)`
    /// of the calendars the same answers give in yfinance 0.2.65.
    #[test]
    fn calendars_as_pandas_prints_them() {
        let answer = |events: Json| serde_json::json!({"quoteSummary": {"result": [{"calendarEvents": events}]}});
        let md = |events: Json| {
            calendar_frame(Some(&answer(events))).map(|f| crate::yahoofinance::markdown(&f))
        };
        assert_eq!(
            md(serde_json::json!({"dividendDate": 1755129600, "earnings": {"earningsDate": [], "earningsAverage": 1.5}})),
            Ok("| Dividend Date   | Earnings Date   | Earnings High   | Earnings Low   | Earnings Average   | Revenue High   | Revenue Low   | Revenue Average   |\n|-----------------|-----------------|-----------------|----------------|--------------------|----------------|---------------|-------------------|".to_string())
        );
        assert_eq!(
            md(serde_json::json!({"earnings": {"earningsDate": [1761854400], "earningsLow": 1.71, "revenueHigh": 5}})),
            Ok("|    | Earnings Date   | Earnings High   |   Earnings Low | Earnings Average   |   Revenue High | Revenue Low   | Revenue Average   |\n|---:|:----------------|:----------------|---------------:|:-------------------|---------------:|:--------------|:------------------|\n|  0 | 2025-10-30      |                 |           1.71 |                    |              5 |               |                   |".to_string())
        );
        // Only scalars: pandas refuses to build the frame, and RAGFlow reports its message.
        assert_eq!(
            md(serde_json::json!({"dividendDate": 1755129600})),
            Err("If using all scalar values, you must pass an index".to_string())
        );
        // No events at all: the empty calendar prints nothing.
        assert_eq!(md(serde_json::json!({"maxAge": 1})), Ok(String::new()));
        assert_eq!(
            calendar_frame(None).map(|f| crate::yahoofinance::markdown(&f)),
            Ok(String::new())
        );
    }
}
