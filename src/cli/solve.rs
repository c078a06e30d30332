//! `retro solve`: the contest answer, and nothing else on stdout.

use super::BoardArgs;
use crate::error::Result;
use crate::game::GameSpec;
use crate::job;
use crate::sweep::{Driver, Silent};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    board: BoardArgs,
}

pub fn run(args: Args) -> Result<i32> {
    let spec = args.board.load()?;
    // MPI: the ranks sweep together and rank 0 prints (see `distributed`).
    #[cfg(feature = "mpi")]
    if crate::distributed::under_mpi() {
        return crate::distributed::solve(&spec);
    }
    let value = job::solve(&spec, Driver::Parallel, &Silent)?;
    match &spec {
        GameSpec::Young(_) => println!("{value}"),
        GameSpec::Twins(t) => println!("{value}\n{}", t.total_weight()? - value),
    }
    Ok(0)
}
