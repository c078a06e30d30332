//! The jobs behind the commands, as library calls (the CLI, the benchmarks and the tests
//! all go through here): solve a board, build a table.

use std::path::Path;
use std::time::Instant;

use crate::error::Result;
use crate::game::{Game, GameSpec};
use crate::sweep::{self, Driver, Progress};
use crate::table::TableWriter;
use crate::value::Value;
use crate::with_value_type;

/// Value of the empty board, holding two layers at a time.
pub fn solve(spec: &GameSpec, driver: Driver, progress: &dyn Progress) -> Result<i64> {
    crate::with_game!(spec, game => solve_game(&game, driver, progress))
}

pub fn solve_game<G: Game>(game: &G, driver: Driver, progress: &dyn Progress) -> Result<i64> {
    let vt = sweep::value_type(game);
    sweep::check_memory(game, vt.width())?;
    with_value_type!(vt, V => sweep::solve::<G, V>(game, driver, progress))
}

/// What a finished build reports.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub positions: u64,
    pub seconds: f64,
    pub file_bytes: u64,
    pub root_value: i64,
}

/// Sweep the board and write its complete table to `path`.
pub fn build(
    spec: &GameSpec,
    path: &Path,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    crate::with_game!(spec, game => {
        let vt = sweep::value_type(&game);
        sweep::check_memory(&game, vt.width())?;
        with_value_type!(vt, V => build_game::<_, V>(&game, path, driver, progress))
    })
}

fn build_game<G: Game, V: Value>(
    game: &G,
    path: &Path,
    driver: Driver,
    progress: &dyn Progress,
) -> Result<BuildReport> {
    let start = Instant::now();
    let sizes: Vec<u64> = (0..=game.cells()).map(|k| game.layer_size(k)).collect();
    let mut writer = TableWriter::create(path, game.spec(), V::TYPE, &sizes)?;
    let root_value = sweep::sweep::<G, V>(game, driver, progress, |k, values| {
        writer.write_layer(k, values)
    })?;
    let file_bytes = writer.finish()?;
    Ok(BuildReport {
        positions: sizes.iter().sum(),
        seconds: start.elapsed().as_secs_f64(),
        file_bytes,
        root_value,
    })
}
