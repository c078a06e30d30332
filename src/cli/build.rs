//! `retro build`: sweep a board and write its table.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

use super::{BoardArgs, progress_bar};
use crate::error::{Result, io_error};
use crate::game::GameSpec;
use crate::job;
use crate::sweep::{Driver, Progress, Silent, human_bytes};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    board: BoardArgs,
    /// Table file to write (default: tables/<board>.retro).
    #[arg(short, long, value_name = "TABLE")]
    output: Option<PathBuf>,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// tables/<input file stem>.retro, or for stdin tables/<game>-<R>x<C>-<hash>.retro.
fn default_path(spec: &GameSpec, file: Option<&Path>) -> PathBuf {
    let stem = file
        .and_then(|f| f.file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    let name = stem.unwrap_or_else(|| {
        let (r, c) = spec.dims();
        let hash = xxh3_64(spec.to_input().as_bytes()) as u32;
        format!("{}-{r}x{c}-{hash:08x}", spec.name())
    });
    PathBuf::from("tables").join(format!("{name}.retro"))
}

pub fn run(args: Args) -> Result<i32> {
    let spec = args.board.load()?;
    let path = match &args.output {
        Some(path) => path.clone(),
        None => {
            let path = default_path(&spec, args.board.file.as_deref());
            std::fs::create_dir_all("tables").map_err(|e| io_error(Path::new("tables"), e))?;
            path
        }
    };
    let total: u64 = spec.layer_sizes()?.iter().sum();
    let bar = progress_bar(total, args.quiet);
    let progress: &dyn Progress = match &bar {
        Some(bar) => bar,
        None => &Silent,
    };
    let report = job::build(&spec, &path, Driver::Parallel, progress)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    println!(
        "{}: {} positions in {:.2} s, {} ({} bytes), root value {}",
        path.display(),
        report.positions,
        report.seconds,
        human_bytes(report.file_bytes as f64),
        report.file_bytes,
        report.root_value
    );
    Ok(0)
}
