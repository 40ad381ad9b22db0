//! Human-facing renderings of a [`Report`]: CSV, Markdown side-by-side
//! tables, plain-text tables for terminals, and an SVG throughput chart.
//!
//! All writers return `String`s so the caller decides where output goes and
//! tests can inspect it directly.

use crate::report::{
    BenchResult, IMPL_OURS, MODE_COLD, MODE_EVENTS, MODE_GRAPH, Report, Shape, is_ours,
};
use crate::stats::Summary;
pub use comfy_table::CellAlignment as Align;
use comfy_table::{Table, TableComponent, presets};
use plotters::prelude::*;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;

/// Sort key: our plain kernel, our tuned variants, SDPA's backends in a fixed order, then the
/// rest alphabetically, so that columns line up across reports.
fn impl_rank(name: &str) -> (usize, String) {
    let place = match name {
        IMPL_OURS => 0,
        _ if is_ours(name) => 1,
        "sdpa-flash" => 2,
        "sdpa-cudnn" => 3,
        "sdpa-efficient" => 4,
        _ => 5,
    };
    (place, name.to_string())
}

/// Sort key: the most trustworthy mode (graph) first.
fn mode_rank(mode: &str) -> (usize, String) {
    let place = [MODE_GRAPH, MODE_EVENTS, MODE_COLD]
        .iter()
        .position(|m| *m == mode);
    (place.unwrap_or(3), mode.to_string())
}

/// Items in first-appearance order without duplicates; report order is the
/// benchmark order, which is the most natural reading order.
pub(crate) fn unique_in_order<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for it in items {
        if !out.contains(&it) {
            out.push(it);
        }
    }
    out
}

/// A number to about four significant figures: one more decimal for each decade below 100, down
/// to 0.01, then scientific; `-` when not finite.
pub fn fmt_num(x: f64) -> String {
    match [100.0, 10.0, 1.0, 0.01].iter().position(|t| x.abs() >= *t) {
        _ if !x.is_finite() => "-".to_string(),
        Some(i) => format!("{x:.p$}", p = i + 1),
        None if x == 0.0 => "0".to_string(),
        None => format!("{x:.3e}"),
    }
}

/// `headers` over `rows` in the given preset, each column aligned as `align` says (left where
/// it says nothing, headers included).
fn table(preset: &str, headers: &[impl ToString], rows: &[Vec<String>], align: &[Align]) -> Table {
    let mut table = Table::new();
    let headers = headers.iter().map(ToString::to_string);
    table.load_preset(preset).set_header(headers).add_rows(rows);
    for (column, a) in table.column_iter_mut().zip(align) {
        column.set_cell_alignment(*a);
    }
    table
}

/// A borderless table for terminals and CI logs: a dashed rule under the header, columns apart.
pub fn text_table(headers: &[impl ToString], rows: &[Vec<String>], align: &[Align]) -> String {
    let mut table = table(presets::NOTHING, headers, rows, align);
    table
        .set_style(TableComponent::HeaderLines, '-')
        .set_style(TableComponent::MiddleHeaderIntersections, ' ')
        .set_style(TableComponent::VerticalLines, ' ');
    let last = table.column_count().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, u16::from(i < last)));
    }
    table.trim_fmt() + "\n"
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A GitHub-flavoured Markdown table.
pub fn markdown_table(headers: &[String], rows: &[Vec<String>], align: &[Align]) -> String {
    let escape = |cells: &[String]| cells.iter().map(|c| md_escape(c)).collect::<Vec<_>>();
    let rows: Vec<Vec<String>> = rows.iter().map(|r| escape(r)).collect();
    let table = table(presets::ASCII_MARKDOWN, &escape(headers), &rows, align);
    let mut lines: Vec<String> = table.lines().collect();
    // comfy-table pads cells but leaves the rule plain; a rule cell ending in ':' is what makes
    // a renderer right-align the column.
    if let Some(rule) = lines.get_mut(1) {
        let mut cells: Vec<String> = rule.split('|').map(String::from).collect();
        for (cell, a) in cells.iter_mut().skip(1).zip(align) {
            if matches!(a, Align::Right) && cell.pop().is_some() {
                cell.push(':');
            }
        }
        *rule = cells.join("|");
    }
    lines.join("\n") + "\n"
}

/// Columns of [`to_csv`]: the shape spelled out and the summary flattened, in the order that
/// the record in [`to_csv`] serialises its fields (csv writes a nested struct as consecutive
/// fields, so [`crate::report::Shape`] and [`Summary`] fill the columns named after their fields).
const CSV_HEADER: &str = "suite,shape,dtype,batch,heads_q,heads_kv,seqlen_q,seqlen_k,head_dim,\
    causal,implementation,mode,n,p50_ms,p90_ms,mean_ms,min_ms,max_ms,stdev_ms,tflops,gbps,\
    frac_peak_flops,frac_peak_bw,error,config,schedule";

/// A summary's columns, all empty for a result without one: a plain `None` would be a single
/// empty field and shift every column after it.
struct SummaryColumns(Option<Summary>);

impl Serialize for SummaryColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(summary) => summary.serialize(serializer),
            None => [None::<f64>; 7].serialize(serializer),
        }
    }
}

/// One CSV row per result (header included), for spreadsheets and pandas.
pub fn to_csv(report: &Report) -> String {
    const IN_MEMORY: &str = "CSV of plain fields into memory cannot fail";
    let mut w = csv::WriterBuilder::new();
    let mut w = w.has_headers(false).from_writer(Vec::new());
    w.write_record(CSV_HEADER.split(',')).expect(IN_MEMORY);
    for r in &report.results {
        let s = &r.shape;
        // The shape's fixed columns; what varies (modifiers, decode, paging) is in its key.
        let shape = (
            &s.dtype, s.batch, s.heads_q, s.heads_kv, s.seqlen_q, s.seqlen_k, s.head_dim, s.causal,
        );
        let what = (&r.suite, s.key(), shape, &r.implementation, &r.mode);
        let summary = SummaryColumns(r.effective_summary());
        let peak = (r.frac_peak_flops, r.frac_peak_bw);
        let derived = (r.effective_tflops(), r.gbps, peak, r.error.as_deref());
        let ran = (r.config.as_deref(), r.schedule.as_deref());
        w.serialize((what, summary, derived, ran)).expect(IN_MEMORY);
    }
    String::from_utf8(w.into_inner().expect(IN_MEMORY)).expect("CSV of UTF-8 fields is UTF-8")
}

/// One implementation's numbers in a side-by-side row.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// `None` when the result recorded an error.
    pub summary: Option<Summary>,
    /// At the median.
    pub tflops: Option<f64>,
    /// GB/s of the shape's minimum traffic at the median.
    pub gbps: Option<f64>,
    pub error: Option<String>,
    /// Our kernels only: the configuration that ran.
    pub config: Option<String>,
    /// Our forward calls only: how the launch dealt its tiles.
    pub schedule: Option<String>,
}

impl Cell {
    /// What ran, for the tables: `config (schedule)`, the configuration alone where there is
    /// no schedule (decode), `None` for a baseline.
    pub fn ran(&self) -> Option<String> {
        let config = self.config.as_ref()?;
        Some(match &self.schedule {
            Some(schedule) => format!("{config} ({schedule})"),
            None => config.clone(),
        })
    }
}

/// One shape in one mode, with every implementation's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySideRow {
    /// Suite of the first result seen for this shape.
    pub suite: String,
    pub shape_key: String,
    /// Implementation name to its numbers.
    pub cells: BTreeMap<String, Cell>,
    /// The baseline with the lowest median, and that median.
    pub best_baseline: Option<(String, f64)>,
    /// For each of our implementations with a median:
    /// `best_baseline_p50 / ours_p50` (> 1: we are faster).
    pub speedups: BTreeMap<String, f64>,
}

/// The side-by-side view of one timing mode: its implementations, ours first, and its rows
/// in report order.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySide {
    pub mode: String,
    pub implementations: Vec<String>,
    pub rows: Vec<SideBySideRow>,
}

/// Groups a report into one [`SideBySide`] per mode (graph, events, cold, then others).
pub fn side_by_side(report: &Report) -> Vec<SideBySide> {
    let mut modes = unique_in_order(report.results.iter().map(|r| r.mode.clone()));
    modes.sort_by_key(|m| mode_rank(m));
    let view = |mode: String| {
        let in_mode: Vec<&BenchResult> = report.results.iter().filter(|r| r.mode == mode).collect();
        let mut implementations = unique_in_order(in_mode.iter().map(|r| r.implementation.clone()));
        implementations.sort_by_key(|i| impl_rank(i));
        let keys = unique_in_order(in_mode.iter().map(|r| r.shape.key()));
        let rows = keys.into_iter().map(|k| side_by_side_row(k, &in_mode));
        SideBySide {
            mode,
            implementations,
            rows: rows.collect(),
        }
    };
    modes.into_iter().map(view).collect()
}

/// The row of the results of `in_mode` on the shape `shape_key`.
fn side_by_side_row(shape_key: String, in_mode: &[&BenchResult]) -> SideBySideRow {
    let results = || in_mode.iter().filter(|r| r.shape.key() == shape_key);
    // A later duplicate overrides (as collecting into a map does), matching Report::merge.
    let cells: BTreeMap<String, Cell> = results()
        .map(|r| {
            let cell = Cell {
                summary: r.effective_summary(),
                tflops: r.effective_tflops(),
                gbps: r.effective_gbps(),
                error: r.error.clone(),
                config: r.config.clone(),
                schedule: r.schedule.clone(),
            };
            (r.implementation.clone(), cell)
        })
        .collect();
    let p50 = |c: &Cell| c.summary.map(|s| s.p50);
    let best_baseline = cells
        .iter()
        .filter(|(name, _)| !is_ours(name))
        .filter_map(|(name, c)| p50(c).map(|p| (name.clone(), p)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let speedups = cells
        .iter()
        .filter(|(name, _)| is_ours(name))
        .filter_map(|(name, c)| Some((name.clone(), best_baseline.as_ref()?.1 / p50(c)?)))
        .collect();
    SideBySideRow {
        suite: results()
            .next()
            .map(|r| r.suite.clone())
            .unwrap_or_default(),
        shape_key,
        cells,
        best_baseline,
        speedups,
    }
}

/// The Markdown list of what the report was measured on and how.
fn device_lines(report: &Report) -> String {
    let d = &report.device;
    let extras: Vec<String> = [
        d.compute_capability.as_ref().map(|cc| format!("sm {cc}")),
        d.sm_count.map(|n| format!("{n} SMs")),
        d.driver.as_ref().map(|v| format!("driver {v}")),
        d.sm_clock_mhz.map(|c| format!("SM clock {c} MHz")),
        d.mem_clock_mhz.map(|c| format!("mem clock {c} MHz")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let extras = (!extras.is_empty()).then(|| format!(" ({})", extras.join(", ")));
    let ceilings = report.ceilings.map(|c| {
        let (flops, bw) = (fmt_num(c.bf16_matmul_tflops), fmt_num(c.copy_tbps));
        format!("- measured ceilings: bf16 matmul {flops} TFLOP/s, copy {bw} TB/s")
    });
    let (tool, created, name) = (&report.tool, &report.created_utc, &d.name);
    let lines = [
        Some(format!("- tool: `{tool}`, created {created}")),
        Some(format!("- device: {name}{}", extras.unwrap_or_default())),
        report.commit.as_ref().map(|c| format!("- commit: `{c}`")),
        ceilings,
        report.command.as_ref().map(|c| format!("- command: `{c}`")),
    ];
    lines.into_iter().flatten().map(|l| l + "\n").collect()
}

/// The Markdown report: a header with device and ceilings, then for each mode and suite a table
/// with one row per shape and, for every implementation, p50 ms, p90 ms and TFLOP/s (GB/s of the
/// minimum traffic instead for a suite of decode shapes, which are memory bound), followed by
/// the best baseline and the speedup of each of our implementations over it (`best_baseline_p50 /
/// ours_p50`; > 1 means we are faster), and what each of ours ran (configuration and schedule).
/// Errors are shown as `error` in the table and listed below it.
pub fn to_markdown(report: &Report) -> String {
    let mut out = format!("# Attention forward benchmark\n\n{}", device_lines(report));
    out.push_str("\nLatencies in ms (lower is better); TFLOP/s (decode: GB/s read and written) at the median; speedup = best baseline p50 / ours p50 (> 1: ours is faster).\n");
    let decode_suites: Vec<&String> = unique_in_order(report.results.iter().map(|r| &r.suite))
        .into_iter()
        .filter(|&s| {
            report
                .results
                .iter()
                .filter(|r| &r.suite == s)
                .all(|r| r.shape.decode)
        })
        .collect();
    for view in side_by_side(report) {
        let ours: Vec<&String> = view.implementations.iter().filter(|i| is_ours(i)).collect();
        for suite in unique_in_order(view.rows.iter().map(|r| &r.suite)) {
            let by_bytes = decode_suites.contains(&suite);
            // Bandwidth beside the copy ceiling of the same run, when the report has one.
            let copy_gbps = report
                .ceilings
                .map(|c| c.copy_tbps * 1000.0)
                .filter(|c| *c > 0.0);
            let rate = match (by_bytes, copy_gbps) {
                (false, _) => "TFLOP/s",
                (true, None) => "GB/s",
                (true, Some(_)) => "GB/s (of copy)",
            };
            let mut columns = vec![("shape".to_string(), Align::Left)];
            for i in &view.implementations {
                columns.extend(["p50", "p90", rate].map(|x| (format!("{i} {x}"), Align::Right)));
            }
            columns.push(("best baseline".to_string(), Align::Left));
            columns.extend(ours.iter().map(|o| (format!("speedup {o}"), Align::Right)));
            columns.extend(ours.iter().map(|o| (format!("{o} ran"), Align::Left)));
            let (headers, align): (Vec<String>, Vec<Align>) = columns.into_iter().unzip();
            let _ = write!(out, "\n## Mode `{}`, suite `{suite}`\n\n", view.mode);
            let (mut errors, mut rows) = (Vec::new(), Vec::new());
            for row in view.rows.iter().filter(|r| &r.suite == suite) {
                let mut cells = vec![row.shape_key.clone()];
                for i in &view.implementations {
                    let cell = row.cells.get(i);
                    let summary = cell.and_then(|c| c.summary);
                    let value = cell.and_then(|c| if by_bytes { c.gbps } else { c.tflops });
                    let rate_cell = match (value, copy_gbps.filter(|_| by_bytes)) {
                        (Some(gbps), Some(copy)) => {
                            format!("{} ({:.2})", fmt_num(gbps), gbps / copy)
                        }
                        (value, _) => fmt_num(value.unwrap_or(f64::NAN)),
                    };
                    let failed = cell.filter(|_| summary.is_none());
                    if let Some(e) = failed.and_then(|c| c.error.as_ref()) {
                        errors.push(format!("- {} / {i}: {e}", row.shape_key));
                    }
                    let missing = if failed.is_some() { "error" } else { "-" };
                    cells.extend(match summary {
                        Some(s) => [fmt_num(s.p50), fmt_num(s.p90), rate_cell],
                        None => [missing, "-", "-"].map(String::from),
                    });
                }
                cells.push(row.best_baseline.as_ref().map_or("-", |b| &b.0).to_string());
                for o in &ours {
                    let speedup = row.speedups.get(*o);
                    cells.push(speedup.map_or("-".to_string(), |s| format!("{s:.2}x")));
                }
                for o in &ours {
                    let ran = row.cells.get(*o).and_then(Cell::ran);
                    cells.push(ran.unwrap_or_else(|| "-".to_string()));
                }
                rows.push(cells);
            }
            out.push_str(&markdown_table(&headers, &rows, &align));
            if !errors.is_empty() {
                out.push_str("\nErrors:\n\n");
                out.extend(errors.iter().map(|e| md_escape(e) + "\n"));
            }
        }
    }
    out
}

/// What [`svg_chart`] plots, and the options of `flashattn-report chart` (whose help the field
/// docs are); the defaults are the command line's.
#[derive(Debug, Clone, PartialEq, Eq, clap::Parser)]
pub struct ChartOptions {
    /// Only shapes with this head dimension.
    #[arg(long)]
    pub head_dim: usize,
    /// Timing mode [default: graph when the report has it, else events].
    #[arg(long, value_parser = [MODE_EVENTS, MODE_COLD, MODE_GRAPH])]
    pub mode: Option<String>,
    /// Only shapes of this suite; `any` for every non-causal shape.
    #[arg(long, default_value = "sweep")]
    pub suite: String,
}

impl ChartOptions {
    /// The sweep suite at `head_dim`, mode chosen automatically.
    pub fn new(head_dim: usize) -> Self {
        clap::Parser::parse_from(["chart", "--head-dim", &head_dim.to_string()])
    }
}

/// Distinguishable line colours (colour-blind-friendly palette), as 0xRRGGBB.
const PALETTE: [u32; 8] = [
    0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x000000, 0xf0e442,
];

fn seqlen_label(s: u64) -> String {
    if s >= 1024 && s % 1024 == 0 {
        format!("{}K", s / 1024)
    } else {
        s.to_string()
    }
}

/// An SVG line chart of TFLOP/s against sequence length (log2 axis), one line
/// per implementation, for the shapes selected by `opts`.
///
/// Errors (as a message) when nothing matches, so the caller can say why no chart was written.
pub fn svg_chart(report: &Report, opts: &ChartOptions) -> Result<String, String> {
    let suite = Some(opts.suite.as_str()).filter(|s| *s != "any");
    // Known suites select by shape, not by tag: `all` runs tag shared shapes
    // with the first suite that lists them (see `suites::suite`); other names select by tag.
    let members = suite.and_then(crate::suites::suite);
    let members: Option<Vec<String>> = members.map(|m| m.iter().map(Shape::key).collect());
    let wanted = |r: &&BenchResult| {
        r.shape.head_dim == opts.head_dim
            && !r.shape.causal
            && match (&members, suite) {
                (Some(keys), _) => keys.contains(&r.shape.key()),
                (None, Some(name)) => r.suite == name,
                (None, None) => true,
            }
    };
    let candidates: Vec<&BenchResult> = report.results.iter().filter(wanted).collect();
    let mode = match &opts.mode {
        Some(m) => m.clone(),
        None if candidates.iter().any(|r| r.mode == MODE_GRAPH) => MODE_GRAPH.to_string(),
        None => MODE_EVENTS.to_string(),
    };
    // Implementation to seqlen to TFLOP/s: one point per seqlen, the last result's, as merge.
    let mut series: Series = BTreeMap::new();
    for r in candidates
        .iter()
        .filter(|r| r.mode == mode && r.error.is_none())
    {
        if let Some(t) = r.effective_tflops() {
            let line = series.entry(impl_rank(&r.implementation)).or_default();
            line.insert(r.shape.seqlen_q as u64, t);
        }
    }
    series.retain(|_, pts| pts.keys().all(|&s| s > 0));
    if series.is_empty() {
        return Err(format!(
            "no results to chart for head_dim {} (suite {}, mode {mode})",
            opts.head_dim, opts.suite
        ));
    }

    // Not empty: the series are.
    let dtypes = unique_in_order(candidates.iter().map(|r| r.shape.dtype.as_str())).join("/");
    let suite = match suite {
        Some("sweep") => format!("{} tokens per call", crate::suites::SWEEP_TOKENS),
        Some(s) => format!("suite {s}"),
        None => "all suites".to_string(),
    };
    let title = format!(
        "Attention forward, D={}, {dtypes}, {suite} (mode {mode})",
        opts.head_dim
    );
    let mut svg = String::new();
    draw_chart(&mut svg, &title, &series).map_err(|e| format!("drawing the chart: {e}"))?;
    Ok(svg)
}

/// The chart's lines: implementation (by [`impl_rank`]) to sequence length to TFLOP/s.
type Series = BTreeMap<(usize, String), BTreeMap<u64, f64>>;

fn draw_chart(svg: &mut String, title: &str, series: &Series) -> Result<(), Box<dyn Error>> {
    let points = || series.values().flatten();
    let shortest = points().map(|p| *p.0).min().unwrap_or(1);
    let longest = points().map(|p| *p.0).max().unwrap_or(1);
    let top = points().map(|p| *p.1).fold(0.0, f64::max).max(1e-9) * 1.05;
    // Ticks at the powers of two, with half a doubling of room at either end so that the end
    // markers stay off the axes.
    let ticks: Vec<f64> = (shortest.ilog2()..=longest.ilog2())
        .map(|e| (1u64 << e) as f64)
        .collect();
    let x_range =
        (shortest as f64 / std::f64::consts::SQRT_2)..(longest as f64 * std::f64::consts::SQRT_2);

    let area = SVGBackend::with_string(svg, (860, 520)).into_drawing_area();
    area.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(
            x_range.log_scale().base(2.0).with_key_points(ticks),
            0.0..top,
        )?;
    chart
        .configure_mesh()
        .max_light_lines(0)
        .label_style(("sans-serif", 14))
        .x_desc("sequence length (log2 scale)")
        .y_desc("TFLOP/s")
        .x_label_formatter(&|s| seqlen_label(s.round() as u64))
        .y_label_formatter(&|t| t.to_string())
        .draw()?;
    for (((_, name), pts), rgb) in series.iter().zip(PALETTE.iter().cycle()) {
        let colour = RGBColor((rgb >> 16) as u8, (rgb >> 8) as u8, *rgb as u8);
        let style = colour.filled().stroke_width(2);
        let line = pts.iter().map(|(&s, &t)| (s as f64, t));
        chart
            .draw_series(LineSeries::new(line, style).point_size(3))?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], style));
    }
    chart
        .configure_series_labels()
        // Throughput grows with sequence length: the lower right stays clear of the lines.
        .position(SeriesLabelPosition::LowerRight)
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    area.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Device;

    fn result(suite: &str, shape: &Shape, imp: &str, mode: &str, p50: f64) -> BenchResult {
        let samples = vec![p50 * 0.99, p50, p50 * 1.01];
        let mut r = BenchResult::new(suite, shape.clone(), imp, mode, samples);
        r.finish(None);
        r
    }

    fn report() -> Report {
        let mut rep = Report::new("flashattn-bench", Device::named("GPU"));
        let a = Shape::self_attention("f16", 1, 8, 512, 64, false);
        let b = Shape::self_attention("f16", 1, 8, 512, 64, true);
        rep.results = vec![
            result("seed", &a, "sdpa-flash", "events", 2.0),
            result("seed", &a, "flashattn", "events", 1.0),
            result("seed", &a, "sdpa-cudnn", "events", 1.5),
            BenchResult::failed(
                "seed",
                b.clone(),
                "sdpa-cudnn",
                "events",
                "no kernel | sorry",
            ),
            result("seed", &b, "flashattn", "events", 1.0),
            result("seed", &b, "sdpa-flash", "events", 0.8),
            result("seed", &a, "flashattn", "graph", 0.9),
        ];
        for s in [512usize, 1024, 2048, 4096] {
            let sh = Shape::self_attention("bf16", 16384 / s, 16, s, 128, false);
            // An `all` run tags shapes shared with `long` as `long`; the chart
            // must still find them.
            let tag = if s == 2048 { "long" } else { "sweep" };
            let ms = s as f64;
            rep.results.extend([
                result(tag, &sh, "flashattn", "graph", ms / 1000.0),
                result("sweep", &sh, "sdpa-flash", "graph", ms / 800.0),
                result("sweep", &sh, "sdpa-flash", "events", ms / 700.0),
            ]);
        }
        rep
    }

    #[test]
    fn side_by_side_speedups() {
        let views = side_by_side(&report());
        assert_eq!(views[0].mode, "graph");
        let events = &views[1];
        assert_eq!(events.mode, "events");
        assert_eq!(
            events.implementations,
            ["flashattn", "sdpa-flash", "sdpa-cudnn"]
        );
        for (row, best, speedup) in [(0, "sdpa-cudnn", 1.5), (1, "sdpa-flash", 0.8)] {
            let row = &events.rows[row];
            assert_eq!(row.best_baseline.as_ref().unwrap().0, best);
            assert!((row.speedups["flashattn"] - speedup).abs() < 1e-12);
        }
        assert!(events.rows[1].cells["sdpa-cudnn"].error.is_some());
    }

    #[test]
    fn markdown_rates_decode_suites_by_bandwidth() {
        let mut rep = report();
        let dec = Shape::decode("bf16", 8, (32, 8), 4096, 128, Some(16));
        rep.results
            .push(result("decode", &dec, "flashattn", "graph", 0.05));
        let md = to_markdown(&rep);
        let after = md.split("suite `decode`").nth(1).expect("a decode table");
        let decode = after.split("\n## ").next().unwrap();
        assert!(decode.contains("flashattn GB/s") && !decode.contains("TFLOP/s"));
        // K and V dominate: 2 x 8 x 4096 x 8 x 128 bf16 values (134 MB) in 50 us, about 2687 GB/s.
        let gbps = dec.min_bytes().unwrap() / 0.05e-3 / 1e9;
        assert!((gbps - 2687.0).abs() < 1.0, "{gbps}");
        assert!(decode.contains(&fmt_num(gbps)), "{decode}");
        // With a measured copy ceiling, the fraction of it follows.
        rep.ceilings = Some(crate::report::Ceilings {
            bf16_matmul_tflops: 700.0,
            copy_tbps: 3.0,
        });
        let md = to_markdown(&rep);
        let decode = md
            .split("suite `decode`")
            .nth(1)
            .unwrap()
            .split("\n## ")
            .next()
            .unwrap();
        assert!(decode.contains("flashattn GB/s (of copy)"), "{decode}");
        assert!(
            decode.contains(&format!("{} (0.90)", fmt_num(gbps))),
            "{decode}"
        );
        // The forward suites keep TFLOP/s.
        assert!(md.split("suite `seed`").nth(1).unwrap().contains("TFLOP/s"));
    }

    #[test]
    fn markdown_contains_tables_and_errors() {
        let mut rep = report();
        for r in rep
            .results
            .iter_mut()
            .filter(|r| r.implementation == "flashattn")
        {
            r.config = Some("sm90_f16_d64_m64n64w4s2".into());
            r.schedule = Some("tile-per-cta".into());
        }
        let md = to_markdown(&rep);
        assert!(
            md.contains("sm90_f16_d64_m64n64w4s2 (tile-per-cta)"),
            "{md}"
        );
        assert!(md.contains("## Mode `graph`, suite `seed`"));
        assert!(md.contains("## Mode `events`, suite `sweep`"));
        let cells = |line: &str| -> Vec<String> {
            let line = line.replace("\\|", "");
            line.split('|').map(|c| c.trim().to_string()).collect()
        };
        let header = "|shape|flashattn p50|flashattn p90|flashattn TFLOP/s|sdpa-flash p50|";
        assert!(md.lines().any(|l| cells(l).join("|").starts_with(header)));
        for text in ["1.50x", "0.80x", "no kernel \\| sorry"] {
            assert!(md.contains(text), "{text}");
        }
        // Every table row has as many cells as its header.
        for block in md.split("\n\n").filter(|b| b.starts_with("| shape")) {
            let counts: Vec<usize> = block.lines().map(|l| cells(l).len()).collect();
            assert!(counts.iter().all(|c| *c == counts[0]), "{block}");
        }
        let rule = md.lines().find(|l| l.starts_with("|---")).unwrap();
        let rule = cells(rule);
        assert!(rule[1].ends_with('-') && rule[2].ends_with(':'), "{rule:?}");
    }

    #[test]
    fn csv_has_one_row_per_result_and_quotes() {
        let mut rep = report();
        rep.results[3].error = Some("say \"hi\", twice".into());
        // Shapes whose JSON has extra fields (modifiers, decode, paging) keep the columns.
        rep.results[1].shape.mods.softcap = Some(30);
        rep.results[2].shape = Shape::decode("bf16", 8, (32, 8), 4096, 128, Some(64));
        rep.results[0].config = Some("sm90_bf16_d128_m192n80w16s4ws".into());
        rep.results[0].schedule = Some("split-tail".into());
        let csv = to_csv(&rep);
        assert_eq!(csv.lines().count(), rep.results.len() + 1);
        let header = csv.lines().next().unwrap();
        assert!(header.starts_with("suite,shape,dtype") && header.split(',').count() == 26);
        assert!(csv.contains(",\"say \"\"hi\"\", twice\",,\n"), "{csv}");
        // Every record has every column, the failed result's empty summary included.
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert!(records.iter().all(|r| r.len() == 26));
        assert_eq!(&records[3][23], "say \"hi\", twice");
        assert_eq!(
            (&records[0][24], &records[0][25]),
            ("sm90_bf16_d128_m192n80w16s4ws", "split-tail")
        );
        assert_eq!((&records[3][12], &records[3][13]), ("", ""));
        assert_eq!(
            (&records[0][9], &records[0][12], &records[0][13]),
            ("false", "3", "2.0")
        );
    }

    #[test]
    fn text_table_aligns() {
        let rows = [["a", "1.5"], ["longer", "10.25"]].map(|r| r.map(String::from).to_vec());
        let want = "name       ms\n------- -----\na         1.5\nlonger  10.25\n";
        let t = text_table(&["name", "ms"], &rows, &[Align::Left, Align::Right]);
        assert_eq!(t, want);
    }

    #[test]
    fn svg_chart_prefers_graph_mode() {
        let svg = svg_chart(&report(), &ChartOptions::new(128)).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("mode graph"));
        // One line per implementation and one in its legend entry, in the palette's colours.
        let (first, second) = ("stroke=\"#0072B2\"", "stroke=\"#D55E00\"");
        let lines = |svg: &str, colour: &str| {
            svg.lines()
                .filter(|l| l.starts_with("<polyline") && l.contains(colour))
                .count()
        };
        assert_eq!((lines(&svg, first), lines(&svg, second)), (2, 2), "{svg}");
        // Four markers per line.
        assert_eq!(svg.matches("<circle").count(), 8);
        // plotters writes each text element's content on a line of its own.
        for label in ["512", "1K", "2K", "4K", "TFLOP/s"] {
            assert!(svg.lines().any(|l| l == label), "missing {label}");
        }
        let events = ChartOptions {
            mode: Some("events".into()),
            ..ChartOptions::new(128)
        };
        let events = svg_chart(&report(), &events).unwrap();
        assert_eq!((lines(&events, first), lines(&events, second)), (2, 0));
        assert!(svg_chart(&report(), &ChartOptions::new(256)).is_err());
    }

    #[test]
    fn number_formatting() {
        for (x, want) in [
            (123.456, "123.5"),
            (-12.3456, "-12.35"),
            (1.23456, "1.235"),
            (0.123456, "0.1235"),
            (0.00123456, "1.235e-3"),
            (0.0, "0"),
            (f64::NAN, "-"),
            (f64::INFINITY, "-"),
        ] {
            assert_eq!(fmt_num(x), want);
        }
        for (s, want) in [(512, "512"), (16384, "16K")] {
            assert_eq!(seqlen_label(s), want);
        }
    }
}
