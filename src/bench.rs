//! Thread-scaling runs: the full in-memory sweep once per thread count, each in its own
//! rayon pool (built outside the timed region), and the results as plain data that export
//! to a table, CSV, JSON, markdown and an SVG plot.

use std::time::Instant;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::game::GameSpec;
use crate::job;
use crate::sweep::{Driver, Silent};

#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    pub threads: usize,
    /// Median wall time of the repeats.
    pub seconds: f64,
    pub positions_per_second: f64,
    /// Against the one-thread row (or the smallest thread count measured, scaled).
    pub speedup: f64,
    /// speedup / threads.
    pub efficiency: f64,
}

/// Time the sweep of `spec` `repeat` times per thread count, after untimed warm-up runs in
/// the same pool: at least one, and more until `warmup` seconds have passed.
pub fn run(
    spec: &GameSpec,
    threads: &[usize],
    repeat: usize,
    warmup: f64,
    mut log: impl FnMut(usize, f64),
) -> Result<Vec<BenchRow>> {
    let positions: u64 = spec.layer_sizes()?.iter().sum();
    let mut medians = Vec::new();
    for &t in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| Error::other(format!("cannot start {t} threads: {e}")))?;
        // A fresh pool's first sweeps are slower: on this VM a newly busy core took up to
        // three twins 4 x 4 sweeps (0.27 s) to run at full speed, enough to move a median
        // of 9. Warming up by time rather than by count covers small and large boards alike.
        let sweep = || pool.install(|| job::solve(spec, Driver::Parallel, &Silent));
        let warm = Instant::now();
        loop {
            sweep()?;
            if warm.elapsed().as_secs_f64() >= warmup {
                break;
            }
        }
        let mut times = Vec::with_capacity(repeat);
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            sweep()?;
            let secs = start.elapsed().as_secs_f64();
            log(t, secs);
            times.push(secs);
        }
        times.sort_by(f64::total_cmp);
        medians.push((t, times[times.len() / 2]));
    }
    // Speedup is relative to one thread; without a one-thread run, to the smallest count
    // measured, assuming it scaled perfectly up to there.
    let (base_t, base_s) = medians
        .iter()
        .copied()
        .min_by_key(|&(t, _)| t)
        .unwrap_or((1, 1.0));
    let one_thread = base_s * base_t as f64;
    Ok(medians
        .into_iter()
        .map(|(t, s)| BenchRow {
            threads: t,
            seconds: s,
            positions_per_second: positions as f64 / s,
            speedup: one_thread / s,
            efficiency: one_thread / s / t as f64,
        })
        .collect())
}

const COLUMNS: [&str; 5] = ["threads", "seconds", "positions/s", "speedup", "efficiency"];

/// A row's cells as every human-readable format shows them.
fn cells(r: &BenchRow) -> [String; 5] {
    [
        r.threads.to_string(),
        format!("{:.3}", r.seconds),
        format!("{:.0}", r.positions_per_second),
        format!("{:.2}", r.speedup),
        format!("{:.0}%", r.efficiency * 100.0),
    ]
}

pub fn to_text(rows: &[BenchRow]) -> String {
    let line = |c: &[String]| {
        format!(
            "{:>7}  {:>10}  {:>14}  {:>7}  {:>10}\n",
            c[0], c[1], c[2], c[3], c[4]
        )
    };
    let header: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    let mut out = line(&header);
    rows.iter().for_each(|r| out.push_str(&line(&cells(r))));
    out
}

pub fn to_markdown(rows: &[BenchRow]) -> String {
    let mut out = format!("| {} |\n|---:|---:|---:|---:|---:|\n", COLUMNS.join(" | "));
    rows.iter()
        .for_each(|r| out.push_str(&format!("| {} |\n", cells(r).join(" | "))));
    out
}

/// Machine-readable: full precision, no units.
pub fn to_csv(rows: &[BenchRow]) -> String {
    let mut out = String::from("threads,seconds,positions_per_second,speedup,efficiency\n");
    for r in rows {
        out.push_str(&format!(
            "{},{:.6},{:.1},{:.4},{:.4}\n",
            r.threads, r.seconds, r.positions_per_second, r.speedup, r.efficiency
        ));
    }
    out
}

pub fn to_json(rows: &[BenchRow]) -> String {
    serde_json::to_string_pretty(rows).unwrap_or_else(|_| "[]".into())
}

/// Speedup against threads, with the ideal line and each point's efficiency labelled.
pub fn plot_svg(rows: &[BenchRow], title: &str, path: &std::path::Path) -> Result<()> {
    use plotters::prelude::*;
    let fail = |e: String| Error::other(format!("{}: cannot draw the plot: {e}", path.display()));
    let max_t = rows.iter().map(|r| r.threads).max().unwrap_or(1).max(2) as f64;
    let max_s = rows.iter().map(|r| r.speedup).fold(max_t, f64::max);
    let root = SVGBackend::new(path, (640, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_t + 0.5, 0.0..max_s + 0.5)
        .map_err(|e| fail(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("speedup")
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (max_t, max_t)],
            BLACK.mix(0.4),
        ))
        .map_err(|e| fail(e.to_string()))?
        .label("ideal");
    let points: Vec<(f64, f64)> = rows.iter().map(|r| (r.threads as f64, r.speedup)).collect();
    chart
        .draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))
        .map_err(|e| fail(e.to_string()))?
        .label("measured");
    chart
        .draw_series(rows.iter().map(|r| {
            let p = (r.threads as f64, r.speedup);
            EmptyElement::at(p)
                + Circle::new((0, 0), 4, BLUE.filled())
                + Text::new(
                    format!("{:.0}%", r.efficiency * 100.0),
                    (6, -16),
                    ("sans-serif", 14),
                )
        }))
        .map_err(|e| fail(e.to_string()))?;
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    root.present().map_err(|e| fail(e.to_string()))
}
