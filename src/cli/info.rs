//! `retro info`: what a table holds, and whether its values are intact.

use std::path::PathBuf;

use super::open_table;
use crate::error::Result;
use crate::sweep::human_bytes;

#[derive(clap::Args)]
pub struct Args {
    /// Table file.
    table: PathBuf,
}

pub fn run(args: Args) -> Result<i32> {
    let table = open_table(&args.table)?;
    let h = &table.header;
    let (r, c) = h.game.dims();
    let positions = h.total_positions();
    let value_bytes = h.value_bytes();
    let (largest, entry) = h
        .layers
        .iter()
        .enumerate()
        .max_by_key(|(_, l)| l.positions)
        .map(|(k, l)| (k, l.positions))
        .unwrap_or((0, 0));
    println!("table      {}", table.path().display());
    println!("game       {}", h.game.name());
    println!("board      {r} x {c}");
    println!("format     version {}", crate::table::header::VERSION);
    println!(
        "values     {} ({} bytes per position)",
        h.value_type.name(),
        h.value_type.width()
    );
    println!(
        "layers     {} (0..={} stones)",
        h.layers.len(),
        h.layers.len() - 1
    );
    println!("positions  {positions}");
    println!("largest    layer {largest}: {entry} positions");
    println!(
        "layer sizes {}",
        summarise(h.layers.iter().map(|l| l.positions).collect())
    );
    println!(
        "value bytes {} ({value_bytes} bytes)",
        human_bytes(value_bytes as f64)
    );
    println!(
        "file size  {} ({} bytes)",
        human_bytes(table.file_len as f64),
        table.file_len
    );
    table.verify_checksum()?;
    println!("checksum   {:016x} ok", h.checksum);
    Ok(0)
}

/// All sizes for a short list, else the first and last few.
fn summarise(sizes: Vec<u64>) -> String {
    let show = |s: &[u64]| {
        s.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if sizes.len() <= 12 {
        show(&sizes)
    } else {
        format!(
            "{} ... {}",
            show(&sizes[..5]),
            show(&sizes[sizes.len() - 5..])
        )
    }
}
