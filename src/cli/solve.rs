//! `retro solve`: the contest answer, and nothing else on stdout.

use super::BoardArgs;
use crate::error::Result;
use crate::game::Game;
use crate::job;
use crate::sweep::{Driver, Silent};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro solve young tables/young-sample.txt
  retro gen twins 4x5 | retro solve twins")]
pub struct Args {
    #[command(flatten)]
    threads: super::Threads,
    #[command(flatten)]
    board: BoardArgs,
}

pub fn run(args: Args) -> Result<i32> {
    args.threads.start()?;
    let spec = args.board.load()?;
    // MPI: the ranks sweep together and rank 0 prints (see `distributed`).
    #[cfg(feature = "mpi")]
    if crate::distributed::under_mpi() {
        if let Some(answer) = crate::distributed::solve(&spec)? {
            super::outln!("{answer}")?;
        }
        return Ok(0);
    }
    // One game instance for the sweep and the answer: building a game (young's suffix
    // templates) is not free.
    let answer = crate::with_game!(&spec, game => {
        let value = job::solve_game(&game, Driver::Parallel, &Silent)?;
        Ok(game.contest_answer(value))
    })?;
    super::outln!("{answer}")?;
    Ok(0)
}
