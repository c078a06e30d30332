//! Thread-scaling runs: the full in-memory sweep once per thread count, each in its own
//! rayon pool (built outside the timed region), and the results as plain data that export
//! to a table, CSV, JSON, markdown and an SVG plot.

use std::time::Instant;

use serde::Serialize;

use crate::build;
use crate::error::{Error, Result};
use crate::game::{AnyBoard, Registered};
use crate::progress::Silent;
use crate::solve::Driver;

/// Everything one `retro bench` measured: the board, so that an exported file stands on its
/// own, and one result per thread count.
#[derive(Debug, Clone, Serialize)]
pub struct Bench {
    /// The game's name (`young`, `twins`, `mnk`).
    pub game: &'static str,
    /// The board's size (`AnyBoard::label`): "15x15"; mnk and connect add K ("4x4k3").
    pub board: String,
    /// Positions the sweep solves (every layer): where the game folds symmetric positions,
    /// those its entries stand for.
    pub positions: u64,
    /// Entries the sweep computes: `positions` where the game does not fold, one per orbit
    /// where it does.
    pub entries: u64,
    /// The symmetries the game folds (1: none).
    pub symmetries: usize,
    /// The rows, one per thread count, in the order asked.
    pub results: Vec<BenchRow>,
}

/// One thread count's timed runs, in seconds. The median is the headline figure:
/// `positions_per_second`, `speedup` and `efficiency` are all computed from it, since on a
/// shared machine one slow run moves the mean but not the median. Mean ± standard deviation
/// and min … max show the spread, as hyperfine reports them.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    /// Worker threads of this row's pool.
    pub threads: usize,
    /// The middle run (of an even count, the slower of the two middle runs): always a time
    /// that was measured.
    pub median: f64,
    /// Mean of the timed runs, in seconds.
    pub mean: f64,
    /// Sample standard deviation; `None` (JSON `null`) for a single run, which has no spread.
    pub stddev: Option<f64>,
    /// Fastest run, in seconds.
    pub min: f64,
    /// Slowest run, in seconds.
    pub max: f64,
    /// Positions over the median time.
    pub positions_per_second: f64,
    /// Entries over the median time: the work the sweep did, where the game folds.
    pub entries_per_second: f64,
    /// Median against the one-thread median (or the smallest thread count measured, scaled).
    pub speedup: f64,
    /// speedup / threads.
    pub efficiency: f64,
    /// Every timed run, in the order run.
    pub times: Vec<f64>,
}

/// Where a run of `retro bench` has got to, reported between sweeps (never inside one).
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    /// The untimed warm-up of this thread count's pool is starting.
    WarmUp {
        /// Worker threads of the pool.
        threads: usize,
    },
    /// Timed run `run` of `of` is about to start; `last` is the previous run's time.
    Run {
        /// Worker threads of the pool.
        threads: usize,
        /// The run about to start, from 1.
        run: usize,
        /// Timed runs per pool.
        of: usize,
        /// Seconds of the previous run, if any.
        last: Option<f64>,
    },
}

/// Time the sweep of `game` `repeat` times per thread count, after untimed warm-up runs in
/// the same pool: at least one, and more until `warmup` seconds have passed.
pub fn run<G: Registered>(
    game: &G,
    threads: &[usize],
    repeat: usize,
    warmup: f64,
    mut progress: impl FnMut(Progress),
) -> Result<Bench> {
    let entries = game.total_positions();
    let positions = (0..=game.last_layer())
        .map(|k| game.layer_positions(k))
        .sum();
    let repeat = repeat.max(1);
    let mut runs = Vec::new();
    for &t in threads {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .map_err(|e| Error::other(format!("cannot start {t} threads: {e}")))?;
        // A fresh pool's first sweeps are slower: on this VM a newly busy core took up to
        // three twins 4 x 4 sweeps (0.27 s) to run at full speed, enough to move a median
        // of 9. Warming up by time rather than by count covers small and large boards alike.
        let sweep = || pool.install(|| build::solve(game, Driver::Parallel, &Silent));
        progress(Progress::WarmUp { threads: t });
        let warm = Instant::now();
        loop {
            sweep()?;
            if warm.elapsed().as_secs_f64() >= warmup {
                break;
            }
        }
        // Grown as runs finish: a large `repeat` must not reserve memory before the first.
        let mut times = Vec::new();
        for run in 1..=repeat {
            progress(Progress::Run {
                threads: t,
                run,
                of: repeat,
                last: times.last().copied(),
            });
            let start = Instant::now();
            sweep()?;
            times.push(start.elapsed().as_secs_f64());
        }
        runs.push((t, times));
    }
    Ok(Bench {
        game: G::NAME,
        board: AnyBoard::of(game).label(),
        positions,
        entries,
        symmetries: game.symmetries(),
        results: rows(positions, entries, runs),
    })
}

/// Statistics of each thread count's times; `runs` holds at least one time per count.
fn rows(positions: u64, entries: u64, runs: Vec<(usize, Vec<f64>)>) -> Vec<BenchRow> {
    let median = |times: &[f64]| {
        let mut sorted = times.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    };
    // Speedup is relative to one thread; without a one-thread run, to the smallest count
    // measured, assuming it scaled perfectly up to there.
    let one_thread = runs
        .iter()
        .min_by_key(|(t, _)| *t)
        .map_or(1.0, |(t, times)| median(times) * *t as f64);
    runs.into_iter()
        .map(|(t, times)| {
            let n = times.len() as f64;
            let min = times.iter().copied().fold(f64::INFINITY, f64::min);
            let max = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // Rounding in the sum can put the mean of equal times an ulp outside them.
            let mean = (times.iter().sum::<f64>() / n).clamp(min, max);
            let stddev = (times.len() > 1).then(|| {
                let squares: f64 = times.iter().map(|x| (x - mean).powi(2)).sum();
                (squares / (n - 1.0)).sqrt()
            });
            let s = median(&times);
            BenchRow {
                threads: t,
                median: s,
                mean,
                stddev,
                min,
                max,
                positions_per_second: positions as f64 / s,
                entries_per_second: entries as f64 / s,
                speedup: one_thread / s,
                efficiency: one_thread / s / t as f64,
                times,
            }
        })
        .collect()
}

/// One unit for every time in a table, so that columns compare at a glance: the largest of
/// s, ms and µs in which the fastest run is at least 1.
fn unit(bench: &Bench) -> (&'static str, f64) {
    let fastest = bench
        .results
        .iter()
        .map(|r| r.min)
        .fold(f64::INFINITY, f64::min);
    if fastest >= 1.0 {
        ("s", 1.0)
    } else if fastest >= 1e-3 {
        ("ms", 1e3)
    } else {
        ("µs", 1e6)
    }
}

/// The header and each row's cells as the human-readable formats show them.
fn table(bench: &Bench) -> (Vec<String>, Vec<Vec<String>>) {
    let (name, scale) = unit(bench);
    let time = |s: f64| format!("{:.3}", s * scale);
    // Where the game folds, the sweep computes an entry per orbit: both rates are shown.
    let folded = bench.entries != bench.positions;
    let mut header = vec![
        "threads".to_string(),
        format!("median ({name})"),
        format!("mean ± σ ({name})"),
        format!("min … max ({name})"),
        "positions/s".to_string(),
    ];
    if folded {
        header.push("entries/s".to_string());
    }
    header.extend(["speedup".to_string(), "efficiency".to_string()]);
    let rows = bench
        .results
        .iter()
        .map(|r| {
            let mut row = vec![
                r.threads.to_string(),
                time(r.median),
                match r.stddev {
                    Some(sd) => format!("{} ± {}", time(r.mean), time(sd)),
                    None => time(r.mean),
                },
                format!("{} … {}", time(r.min), time(r.max)),
                format!("{:.0}", r.positions_per_second),
            ];
            if folded {
                row.push(format!("{:.0}", r.entries_per_second));
            }
            row.extend([
                format!("{:.2}", r.speedup),
                format!("{:.0}%", r.efficiency * 100.0),
            ]);
            row
        })
        .collect();
    (header, rows)
}

/// What was measured, above the table in text and markdown.
fn title(bench: &Bench) -> String {
    let runs = bench.results.first().map_or(0, |r| r.times.len());
    let entries = match bench.entries != bench.positions {
        true => format!(
            " ({} entries: folded by {} symmetries)",
            bench.entries, bench.symmetries
        ),
        false => String::new(),
    };
    format!(
        "{} {}: {} positions{entries}, {runs} timed run{} per thread count",
        bench.game,
        bench.board,
        bench.positions,
        if runs == 1 { "" } else { "s" }
    )
}

/// The results as an aligned text table under a line naming the board.
pub fn to_text(bench: &Bench) -> String {
    let (header, rows) = table(bench);
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| &r[i])
                .chain([&header[i]])
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, &w)| format!("{c:>w$}"))
            .collect();
        padded.join("  ") + "\n"
    };
    let mut out = title(bench) + "\n";
    out.push_str(&line(&header));
    rows.iter().for_each(|r| out.push_str(&line(r)));
    out
}

/// The results as a markdown table under a line naming the board.
pub fn to_markdown(bench: &Bench) -> String {
    let (header, rows) = table(bench);
    let mut out = format!("{}\n\n| {} |\n|", title(bench), header.join(" | "));
    out.push_str(&"---:|".repeat(header.len()));
    out.push('\n');
    rows.iter()
        .for_each(|r| out.push_str(&format!("| {} |\n", r.join(" | "))));
    out
}

/// Machine-readable: every row carries the board, times in seconds at full precision, no
/// units; a single run's standard deviation is an empty cell.
pub fn to_csv(bench: &Bench) -> String {
    let mut out = String::from(
        "game,board,positions,threads,median,mean,stddev,min,max,positions_per_second,speedup,efficiency,entries,entries_per_second\n",
    );
    for r in &bench.results {
        let stddev = r.stddev.map_or(String::new(), |sd| sd.to_string());
        out.push_str(&format!(
            "{},{},{},{},{},{},{stddev},{},{},{:.1},{:.4},{:.4},{},{:.1}\n",
            bench.game,
            bench.board,
            bench.positions,
            r.threads,
            r.median,
            r.mean,
            r.min,
            r.max,
            r.positions_per_second,
            r.speedup,
            r.efficiency,
            bench.entries,
            r.entries_per_second
        ));
    }
    out
}

/// The results as a pretty-printed JSON object.
pub fn to_json(bench: &Bench) -> Result<String> {
    serde_json::to_string_pretty(bench)
        .map_err(|e| Error::other(format!("cannot write the results as JSON: {e}")))
}

/// The one-minute load average (`/proc/loadavg`), where the system says it.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Speedup against threads, with the ideal line and each point's efficiency labelled.
#[cfg(feature = "cli")]
pub fn plot_svg(rows: &[BenchRow], title: &str, path: &std::path::Path) -> Result<()> {
    use plotters::prelude::*;
    let fail = |e: String| Error::other(format!("{}: cannot draw the plot: {e}", path.display()));
    let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1).max(2);
    let max_t = max_threads as f64;
    let max_s = rows.iter().map(|r| r.speedup).fold(max_t, f64::max);
    let root = SVGBackend::new(path, (640, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(50)
        // Threads are whole: an integer axis has ticks at whole numbers only.
        .build_cartesian_2d(0..max_threads + 1, 0.0..max_s + 0.5)
        .map_err(|e| fail(e.to_string()))?;
    chart
        .configure_mesh()
        .x_labels((max_threads + 2).min(17))
        .x_desc("threads")
        .y_desc("speedup")
        .draw()
        .map_err(|e| fail(e.to_string()))?;
    chart
        .draw_series(LineSeries::new(
            [(0, 0.0), (max_threads, max_t)],
            BLACK.mix(0.4),
        ))
        .map_err(|e| fail(e.to_string()))?
        .label("ideal")
        // Each legend entry carries a sample of its line.
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
    let points: Vec<(usize, f64)> = rows.iter().map(|r| (r.threads, r.speedup)).collect();
    chart
        .draw_series(LineSeries::new(points, BLUE.stroke_width(2)))
        .map_err(|e| fail(e.to_string()))?
        .label("measured")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart
        .draw_series(rows.iter().map(|r| {
            let p = (r.threads, r.speedup);
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
