//! Human-facing renderings of a [`Report`]: CSV, Markdown side-by-side
//! tables, plain-text tables for terminals, and an SVG throughput chart.
//!
//! All writers return `String`s so the caller decides where output goes and
//! tests can inspect it directly.

use crate::report::{BenchResult, MODE_COLD, MODE_EVENTS, MODE_GRAPH, Report, is_ours};
use crate::stats::Summary;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Sort key that puts our plain kernel first, then our tuned variants, then
/// the SDPA backends in a fixed order, then anything else alphabetically, so
/// that columns line up across reports.
fn impl_rank(name: &str) -> (u8, String) {
    let rank = match name {
        "flashattn" => 0,
        n if is_ours(n) => 1,
        "sdpa-flash" => 2,
        "sdpa-cudnn" => 3,
        "sdpa-efficient" => 4,
        _ => 5,
    };
    (rank, name.to_string())
}

/// Sort key for modes: the most trustworthy (graph) first.
fn mode_rank(mode: &str) -> (u8, String) {
    let rank = match mode {
        MODE_GRAPH => 0,
        MODE_EVENTS => 1,
        MODE_COLD => 2,
        _ => 3,
    };
    (rank, mode.to_string())
}

/// Items in first-appearance order without duplicates; report order is the
/// benchmark order, which is the most natural reading order.
fn unique_in_order<T: PartialEq + Clone>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for it in items {
        if !out.contains(&it) {
            out.push(it);
        }
    }
    out
}

/// Formats a number with a precision that suits its magnitude: three
/// significant figures for small values, whole numbers for large ones.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 10.0 {
        format!("{x:.2}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else if a >= 0.01 {
        format!("{x:.4}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        format!("{x:.3e}")
    }
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map(fmt_num).unwrap_or_else(|| "-".to_string())
}

/// Column alignment for [`text_table`] and [`markdown_table`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text columns.
    Left,
    /// Numeric columns.
    Right,
}

/// A space-padded table for terminals. `align` gives one entry per column;
/// missing entries default to left.
pub fn text_table(headers: &[String], rows: &[Vec<String>], align: &[Align]) -> String {
    let cols = headers.len();
    let mut width: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate().take(cols) {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, w) in width.iter().enumerate() {
            let cell = cells.get(i).map(String::as_str).unwrap_or("");
            let pad = w - cell.chars().count().min(*w);
            if i > 0 {
                s.push_str("  ");
            }
            match align.get(i).copied().unwrap_or(Align::Left) {
                Align::Left => {
                    s.push_str(cell);
                    if i + 1 < cols {
                        s.push_str(&" ".repeat(pad));
                    }
                }
                Align::Right => {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(cell);
                }
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(headers);
    let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&line(&rule));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A GitHub-flavoured Markdown table.
pub fn markdown_table(headers: &[String], rows: &[Vec<String>], align: &[Align]) -> String {
    let mut out = String::new();
    let row_line = |cells: &[String]| {
        let escaped: Vec<String> = cells.iter().map(|c| md_escape(c)).collect();
        format!("| {} |\n", escaped.join(" | "))
    };
    out.push_str(&row_line(headers));
    let rule: Vec<String> = (0..headers.len())
        .map(|i| match align.get(i).copied().unwrap_or(Align::Left) {
            Align::Left => "---".to_string(),
            Align::Right => "---:".to_string(),
        })
        .collect();
    out.push_str(&row_line(&rule));
    for row in rows {
        out.push_str(&row_line(row));
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV row per result (header included), with the shape spelled out and
/// the summary flattened, for spreadsheets and pandas.
pub fn to_csv(report: &Report) -> String {
    let header = [
        "suite",
        "shape",
        "dtype",
        "batch",
        "heads_q",
        "heads_kv",
        "seqlen_q",
        "seqlen_k",
        "head_dim",
        "causal",
        "implementation",
        "mode",
        "n",
        "p50_ms",
        "p90_ms",
        "mean_ms",
        "min_ms",
        "max_ms",
        "stdev_ms",
        "tflops",
        "gbps",
        "frac_peak_flops",
        "frac_peak_bw",
        "error",
    ];
    let mut out = header.join(",");
    out.push('\n');
    let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
    for r in &report.results {
        let s = r.effective_summary();
        let sh = &r.shape;
        let fields = [
            csv_field(&r.suite),
            csv_field(&sh.key()),
            csv_field(&sh.dtype),
            sh.batch.to_string(),
            sh.heads_q.to_string(),
            sh.heads_kv.to_string(),
            sh.seqlen_q.to_string(),
            sh.seqlen_k.to_string(),
            sh.head_dim.to_string(),
            sh.causal.to_string(),
            csv_field(&r.implementation),
            csv_field(&r.mode),
            s.map(|s| s.n.to_string()).unwrap_or_default(),
            opt(s.map(|s| s.p50)),
            opt(s.map(|s| s.p90)),
            opt(s.map(|s| s.mean)),
            opt(s.map(|s| s.min)),
            opt(s.map(|s| s.max)),
            opt(s.map(|s| s.stdev)),
            opt(r.effective_tflops()),
            opt(r.gbps),
            opt(r.frac_peak_flops),
            opt(r.frac_peak_bw),
            csv_field(r.error.as_deref().unwrap_or("")),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// One implementation's numbers in a side-by-side row.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Summary of the samples (`None` when the result recorded an error).
    pub summary: Option<Summary>,
    /// TFLOP/s at the median.
    pub tflops: Option<f64>,
    /// The recorded error, if any.
    pub error: Option<String>,
    /// Our kernels only: the configuration that ran.
    pub config: Option<String>,
}

/// One shape in one mode, with every implementation's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySideRow {
    /// Suite of the first result seen for this shape.
    pub suite: String,
    /// [`crate::report::Shape::key`].
    pub shape_key: String,
    /// Implementation name to its numbers.
    pub cells: BTreeMap<String, Cell>,
    /// The baseline with the lowest median, and that median.
    pub best_baseline: Option<(String, f64)>,
    /// For each of our implementations with a median:
    /// `best_baseline_p50 / ours_p50` (> 1: we are faster).
    pub speedups: BTreeMap<String, f64>,
}

/// The side-by-side view of one timing mode.
#[derive(Debug, Clone, PartialEq)]
pub struct SideBySide {
    /// Timing mode.
    pub mode: String,
    /// Implementations present in this mode, ours first.
    pub implementations: Vec<String>,
    /// Rows in report order.
    pub rows: Vec<SideBySideRow>,
}

/// Groups a report into one [`SideBySide`] per mode (graph, events, cold,
/// then others).
pub fn side_by_side(report: &Report) -> Vec<SideBySide> {
    let mut modes = unique_in_order(report.results.iter().map(|r| r.mode.clone()));
    modes.sort_by_key(|m| mode_rank(m));
    modes
        .into_iter()
        .map(|mode| {
            let in_mode: Vec<&BenchResult> =
                report.results.iter().filter(|r| r.mode == mode).collect();
            let mut implementations =
                unique_in_order(in_mode.iter().map(|r| r.implementation.clone()));
            implementations.sort_by_key(|i| impl_rank(i));
            let shape_keys = unique_in_order(in_mode.iter().map(|r| r.shape.key()));
            let rows = shape_keys
                .into_iter()
                .map(|key| {
                    side_by_side_row(
                        &key,
                        in_mode.iter().copied().filter(|r| r.shape.key() == key),
                    )
                })
                .collect();
            SideBySide {
                mode,
                implementations,
                rows,
            }
        })
        .collect()
}

fn side_by_side_row<'a>(
    key: &str,
    results: impl Iterator<Item = &'a BenchResult>,
) -> SideBySideRow {
    let mut suite = None;
    let mut cells = BTreeMap::new();
    for r in results {
        suite.get_or_insert_with(|| r.suite.clone());
        // A later duplicate overrides, matching Report::merge semantics.
        cells.insert(
            r.implementation.clone(),
            Cell {
                summary: r.effective_summary(),
                tflops: r.effective_tflops(),
                error: r.error.clone(),
                config: r.config.clone(),
            },
        );
    }
    let p50 = |c: &Cell| c.summary.map(|s| s.p50);
    let best_baseline = cells
        .iter()
        .filter(|(name, _)| !is_ours(name))
        .filter_map(|(name, c)| p50(c).map(|p| (name.clone(), p)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let mut speedups = BTreeMap::new();
    if let Some((_, best)) = &best_baseline {
        for (name, c) in cells.iter().filter(|(name, _)| is_ours(name)) {
            if let Some(ours) = p50(c) {
                speedups.insert(name.clone(), best / ours);
            }
        }
    }
    SideBySideRow {
        suite: suite.unwrap_or_default(),
        shape_key: key.to_string(),
        cells,
        best_baseline,
        speedups,
    }
}

fn device_lines(report: &Report) -> Vec<String> {
    let d = &report.device;
    let mut dev = d.name.clone();
    let mut extras = Vec::new();
    if let Some(cc) = &d.compute_capability {
        extras.push(format!("sm {cc}"));
    }
    if let Some(n) = d.sm_count {
        extras.push(format!("{n} SMs"));
    }
    if let Some(v) = &d.driver {
        extras.push(format!("driver {v}"));
    }
    if let Some(c) = d.sm_clock_mhz {
        extras.push(format!("SM clock {c} MHz"));
    }
    if let Some(c) = d.mem_clock_mhz {
        extras.push(format!("mem clock {c} MHz"));
    }
    if !extras.is_empty() {
        dev = format!("{dev} ({})", extras.join(", "));
    }
    let mut lines = vec![
        format!("- tool: `{}`, created {}", report.tool, report.created_utc),
        format!("- device: {dev}"),
    ];
    if let Some(c) = &report.commit {
        lines.push(format!("- commit: `{c}`"));
    }
    if let Some(c) = &report.ceilings {
        lines.push(format!(
            "- measured ceilings: bf16 matmul {} TFLOP/s, copy {} TB/s",
            fmt_num(c.bf16_matmul_tflops),
            fmt_num(c.copy_tbps)
        ));
    }
    if let Some(c) = &report.command {
        lines.push(format!("- command: `{c}`"));
    }
    lines
}

/// The Markdown report: a header with device and ceilings, then for each
/// mode and suite a table with one row per shape and, for every
/// implementation, p50 ms, p90 ms and TFLOP/s, followed by the best baseline
/// and the speedup of each of our implementations over it
/// (`best_baseline_p50 / ours_p50`; > 1 means we are faster). Errors are
/// shown as `error` in the table and listed below it.
pub fn to_markdown(report: &Report) -> String {
    let mut out = String::from("# Attention forward benchmark\n\n");
    for l in device_lines(report) {
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str("\nLatencies in ms (lower is better); TFLOP/s at the median; speedup = best baseline p50 / ours p50 (> 1: ours is faster).\n");
    for view in side_by_side(report) {
        let ours: Vec<&String> = view.implementations.iter().filter(|i| is_ours(i)).collect();
        let suites = unique_in_order(view.rows.iter().map(|r| r.suite.clone()));
        for suite in suites {
            let _ = write!(out, "\n## Mode `{}`, suite `{}`\n\n", view.mode, suite);
            let mut headers = vec!["shape".to_string()];
            let mut align = vec![Align::Left];
            for i in &view.implementations {
                headers.extend([
                    format!("{i} p50"),
                    format!("{i} p90"),
                    format!("{i} TFLOP/s"),
                ]);
                align.extend([Align::Right; 3]);
            }
            headers.push("best baseline".to_string());
            align.push(Align::Left);
            for o in &ours {
                headers.push(format!("speedup {o}"));
                align.push(Align::Right);
            }
            let mut errors = Vec::new();
            let mut rows = Vec::new();
            for row in view.rows.iter().filter(|r| r.suite == suite) {
                let mut cells = vec![row.shape_key.clone()];
                for i in &view.implementations {
                    match row.cells.get(i) {
                        Some(c) if c.summary.is_some() => {
                            let s = c.summary.unwrap();
                            cells.extend([fmt_num(s.p50), fmt_num(s.p90), fmt_opt(c.tflops)]);
                        }
                        Some(c) => {
                            if let Some(e) = &c.error {
                                errors.push(format!("- {} / {i}: {e}", row.shape_key));
                            }
                            cells.extend(["error".to_string(), "-".to_string(), "-".to_string()]);
                        }
                        None => cells.extend(["-".to_string(), "-".to_string(), "-".to_string()]),
                    }
                }
                cells.push(
                    row.best_baseline
                        .as_ref()
                        .map(|b| b.0.clone())
                        .unwrap_or_else(|| "-".into()),
                );
                for o in &ours {
                    cells.push(
                        row.speedups
                            .get(*o)
                            .map(|s| format!("{s:.2}x"))
                            .unwrap_or_else(|| "-".into()),
                    );
                }
                rows.push(cells);
            }
            out.push_str(&markdown_table(&headers, &rows, &align));
            if !errors.is_empty() {
                out.push_str("\nErrors:\n\n");
                for e in errors {
                    out.push_str(&md_escape(&e));
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// What [`svg_chart`] plots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartOptions {
    /// Only shapes with this head dimension.
    pub head_dim: usize,
    /// Only shapes of this suite (`Some("sweep")` by default). A known suite
    /// name selects by shape membership, whatever the results' suite tags;
    /// an unknown name selects by tag. `None` plots every non-causal result.
    pub suite: Option<String>,
    /// Timing mode; `None` picks `graph` when present, else `events`.
    pub mode: Option<String>,
}

impl ChartOptions {
    /// The sweep suite at `head_dim`, mode chosen automatically.
    pub fn new(head_dim: usize) -> Self {
        ChartOptions {
            head_dim,
            suite: Some("sweep".to_string()),
            mode: None,
        }
    }
}

/// Distinguishable line colours (colour-blind-friendly palette).
const PALETTE: [&str; 8] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
];

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step of 1, 2 or 5 times a power of ten giving about `target` intervals
/// over `[0, max]`, so tick labels stay round.
fn nice_step(max: f64, target: f64) -> f64 {
    let raw = max / target;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

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
/// Errors (as a message) when nothing matches, so the caller can say why no
/// chart was written.
pub fn svg_chart(report: &Report, opts: &ChartOptions) -> Result<String, String> {
    // Known suites select by shape, not by tag: `all` runs tag shared shapes
    // with the first suite that lists them (see `suites::suite`).
    let members: Option<Vec<String>> = opts
        .suite
        .as_deref()
        .and_then(crate::suites::suite)
        .map(|shapes| shapes.iter().map(|s| s.key()).collect());
    let in_suite = |r: &BenchResult| match (&members, opts.suite.as_deref()) {
        (Some(keys), _) => keys.contains(&r.shape.key()),
        (None, Some(name)) => r.suite == name,
        (None, None) => true,
    };
    let candidates: Vec<&BenchResult> = report
        .results
        .iter()
        .filter(|r| r.shape.head_dim == opts.head_dim && !r.shape.causal && in_suite(r))
        .collect();
    let mode = match &opts.mode {
        Some(m) => m.clone(),
        None if candidates.iter().any(|r| r.mode == MODE_GRAPH) => MODE_GRAPH.to_string(),
        None => MODE_EVENTS.to_string(),
    };
    let mut series: BTreeMap<(u8, String), Vec<(u64, f64)>> = BTreeMap::new();
    for r in candidates
        .iter()
        .filter(|r| r.mode == mode && r.error.is_none())
    {
        if let Some(t) = r.effective_tflops() {
            series
                .entry(impl_rank(&r.implementation))
                .or_default()
                .push((r.shape.seqlen_q as u64, t));
        }
    }
    for pts in series.values_mut() {
        pts.sort_by_key(|p| p.0);
        // One point per seqlen: keep the last result, as merge does.
        pts.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                *earlier = *later;
                true
            } else {
                false
            }
        });
    }
    series.retain(|_, pts| pts.iter().all(|p| p.0 > 0));
    if series.is_empty() {
        return Err(format!(
            "no results to chart for head_dim {} (suite {}, mode {mode})",
            opts.head_dim,
            opts.suite.as_deref().unwrap_or("any")
        ));
    }

    let (width, height) = (860.0, 520.0);
    let (left, right, top, bottom) = (80.0, 200.0, 60.0, 70.0);
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let all_pts: Vec<(u64, f64)> = series.values().flatten().copied().collect();
    let lx = |s: u64| (s as f64).log2();
    let x_min = all_pts
        .iter()
        .map(|p| lx(p.0))
        .fold(f64::INFINITY, f64::min)
        .floor();
    let x_max = all_pts
        .iter()
        .map(|p| lx(p.0))
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil();
    // Half a doubling of padding keeps end markers off the axes.
    let (x_lo, x_hi) = (x_min - 0.5, x_max + 0.5);
    let y_top_data = all_pts.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-9);
    let step = nice_step(y_top_data * 1.05, 6.0);
    let y_hi = (y_top_data * 1.05 / step).ceil() * step;
    let px = |s: u64| left + (lx(s) - x_lo) / (x_hi - x_lo) * plot_w;
    let py = |t: f64| top + plot_h - t / y_hi * plot_h;

    let dtypes = unique_in_order(candidates.iter().map(|r| r.shape.dtype.clone())).join("/");
    let title = format!(
        "Attention forward, D={}, {}{} (mode {mode})",
        opts.head_dim,
        if dtypes.is_empty() {
            String::new()
        } else {
            format!("{dtypes}, ")
        },
        match opts.suite.as_deref() {
            Some("sweep") => format!("{} tokens per call", crate::suites::SWEEP_TOKENS),
            Some(s) => format!("suite {s}"),
            None => "all suites".to_string(),
        }
    );

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="30" text-anchor="middle" font-size="16">{}</text>"#,
        left + plot_w / 2.0,
        xml_escape(&title)
    );

    // Horizontal grid and y ticks.
    let mut t = 0.0;
    while t <= y_hi + step * 1e-9 {
        let y = py(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/>"##,
            left + plot_w
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 8.0,
            y + 4.0,
            fmt_tick(t)
        );
        t += step;
    }
    // Vertical grid and x ticks at every power of two in range.
    let mut e = x_min as i32;
    while e <= x_max as i32 {
        let s = 1u64 << e.clamp(0, 62);
        let x = px(s);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{:.1}" stroke="#f0f0f0"/>"##,
            top + plot_h
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            top + plot_h + 18.0,
            seqlen_label(s)
        );
        e += 1;
    }
    // Axes and their labels.
    let _ = writeln!(
        svg,
        r#"<path d="M{left} {top} V{:.1} H{:.1}" fill="none" stroke="black"/>"#,
        top + plot_h,
        left + plot_w
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">sequence length (log2 scale)</text>"#,
        left + plot_w / 2.0,
        height - 20.0
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate(22 {:.1}) rotate(-90)" text-anchor="middle">TFLOP/s</text>"#,
        top + plot_h / 2.0
    );

    // One polyline with markers per implementation, and its legend entry.
    for (idx, ((_, name), pts)) in series.iter().enumerate() {
        let colour = PALETTE[idx % PALETTE.len()];
        let points: Vec<String> = pts
            .iter()
            .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            points.join(" ")
        );
        for p in pts {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{colour}"><title>{} S={}: {} TFLOP/s</title></circle>"#,
                px(p.0),
                py(p.1),
                xml_escape(name),
                p.0,
                fmt_num(p.1)
            );
        }
        let ly = top + 10.0 + idx as f64 * 22.0;
        let lx0 = left + plot_w + 20.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{lx0:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/>"#,
            lx0 + 24.0
        );
        let _ = writeln!(
            svg,
            r#"<circle cx="{:.1}" cy="{ly:.1}" r="3.5" fill="{colour}"/>"#,
            lx0 + 12.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx0 + 32.0,
            ly + 4.0,
            xml_escape(name)
        );
    }
    svg.push_str("</svg>\n");
    Ok(svg)
}

fn fmt_tick(t: f64) -> String {
    if t == t.round() {
        format!("{t:.0}")
    } else {
        format!("{t}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BenchResult, Device, Shape};

    fn result(suite: &str, shape: &Shape, imp: &str, mode: &str, p50: f64) -> BenchResult {
        let mut r = BenchResult::new(
            suite,
            shape.clone(),
            imp,
            mode,
            vec![p50 * 0.99, p50, p50 * 1.01],
        );
        r.finish(None);
        r
    }

    fn report() -> Report {
        let mut rep = Report::new(
            "flashattn-bench",
            Device {
                name: "GPU".into(),
                ..Default::default()
            },
        );
        let a = Shape::self_attention("f16", 1, 8, 512, 64, false);
        let b = Shape::self_attention("f16", 1, 8, 512, 64, true);
        rep.results
            .push(result("seed", &a, "sdpa-flash", "events", 2.0));
        rep.results
            .push(result("seed", &a, "flashattn", "events", 1.0));
        rep.results
            .push(result("seed", &a, "sdpa-cudnn", "events", 1.5));
        rep.results.push(BenchResult::failed(
            "seed",
            b.clone(),
            "sdpa-cudnn",
            "events",
            "no kernel | sorry",
        ));
        rep.results
            .push(result("seed", &b, "flashattn", "events", 1.0));
        rep.results
            .push(result("seed", &b, "sdpa-flash", "events", 0.8));
        rep.results
            .push(result("seed", &a, "flashattn", "graph", 0.9));
        for s in [512usize, 1024, 2048, 4096] {
            let sh = Shape::self_attention("bf16", 16384 / s, 16, s, 128, false);
            // An `all` run tags shapes shared with `long` as `long`; the chart
            // must still find them.
            let tag = if s == 2048 { "long" } else { "sweep" };
            rep.results
                .push(result(tag, &sh, "flashattn", "graph", s as f64 / 1000.0));
            rep.results.push(result(
                "sweep",
                &sh,
                "sdpa-flash",
                "graph",
                s as f64 / 800.0,
            ));
            rep.results.push(result(
                "sweep",
                &sh,
                "sdpa-flash",
                "events",
                s as f64 / 700.0,
            ));
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
            vec!["flashattn", "sdpa-flash", "sdpa-cudnn"]
        );
        let row_a = &events.rows[0];
        assert_eq!(row_a.best_baseline.as_ref().unwrap().0, "sdpa-cudnn");
        assert!((row_a.speedups["flashattn"] - 1.5).abs() < 1e-12);
        let row_b = &events.rows[1];
        assert_eq!(row_b.best_baseline.as_ref().unwrap().0, "sdpa-flash");
        assert!((row_b.speedups["flashattn"] - 0.8).abs() < 1e-12);
        assert!(row_b.cells["sdpa-cudnn"].error.is_some());
    }

    #[test]
    fn markdown_contains_tables_and_errors() {
        let md = to_markdown(&report());
        assert!(md.contains("## Mode `graph`, suite `seed`"));
        assert!(md.contains("## Mode `events`, suite `sweep`"));
        assert!(md.contains(
            "| shape | flashattn p50 | flashattn p90 | flashattn TFLOP/s | sdpa-flash p50"
        ));
        assert!(md.contains("1.50x"));
        assert!(md.contains("0.80x"));
        assert!(md.contains("no kernel \\| sorry"));
        // Every table row has as many cells as its header.
        for block in md.split("\n\n").filter(|b| b.starts_with("| shape")) {
            let counts: Vec<usize> = block.lines().map(|l| l.matches(" | ").count()).collect();
            assert!(counts.iter().all(|c| *c == counts[0]), "{block}");
        }
        let rule = md.lines().find(|l| l.starts_with("| ---")).unwrap();
        assert!(rule.starts_with("| --- | ---: |"), "{rule}");
    }

    #[test]
    fn csv_has_one_row_per_result_and_quotes() {
        let rep = report();
        let csv = to_csv(&rep);
        assert_eq!(csv.lines().count(), rep.results.len() + 1);
        assert!(csv.lines().next().unwrap().starts_with("suite,shape,dtype"));
        let cols = csv.lines().next().unwrap().split(',').count();
        assert_eq!(cols, 24);
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn text_table_aligns() {
        let t = text_table(
            &["name".into(), "ms".into()],
            &[
                vec!["a".into(), "1.5".into()],
                vec!["longer".into(), "10.25".into()],
            ],
            &[Align::Left, Align::Right],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "name       ms");
        assert_eq!(lines[1], "------  -----");
        assert_eq!(lines[2], "a         1.5");
        assert_eq!(lines[3], "longer  10.25");
    }

    #[test]
    fn svg_chart_prefers_graph_mode() {
        let svg = svg_chart(&report(), &ChartOptions::new(128)).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("mode graph"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        // Four markers per line plus one legend marker each.
        assert_eq!(svg.matches("<circle").count(), 10);
        for label in [">512<", ">1K<", ">2K<", ">4K<", ">TFLOP/s<"] {
            assert!(svg.contains(label), "missing {label}");
        }
        let events = svg_chart(
            &report(),
            &ChartOptions {
                mode: Some("events".into()),
                ..ChartOptions::new(128)
            },
        )
        .unwrap();
        assert_eq!(events.matches("<polyline").count(), 1);
        assert!(svg_chart(&report(), &ChartOptions::new(256)).is_err());
    }

    #[test]
    fn number_formatting() {
        assert_eq!(fmt_num(123.456), "123.5");
        assert_eq!(fmt_num(12.3456), "12.35");
        assert_eq!(fmt_num(1.23456), "1.235");
        assert_eq!(fmt_num(0.123456), "0.1235");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(f64::NAN), "-");
        assert!((nice_step(100.0, 6.0) - 20.0).abs() < 1e-12);
        assert!((nice_step(7.0, 6.0) - 2.0).abs() < 1e-12);
        assert_eq!(seqlen_label(512), "512");
        assert_eq!(seqlen_label(16384), "16K");
    }
}
