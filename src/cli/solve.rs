//! `retro solve`: the contest answer, and nothing else on stdout.

use super::BoardArgs;
use crate::build;
use crate::error::Result;
use crate::game::{Registered, Registry, Visitor};
use crate::progress::Silent;
use crate::solve::Driver;

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

pub fn run<R: Registry>(args: Args) -> Result<i32> {
    args.threads.start()?;
    let board = args.board.load_on_every_rank::<R>()?;
    let answer = R::visit(&board, ContestAnswer);
    // An error before the ranks' solve took MPI over, once rank 0 shared its board.
    #[cfg(feature = "mpi")]
    if let Err(e) = &answer {
        crate::distributed::leave(e);
    }
    if let Some(answer) = answer? {
        super::outln!("{answer}")?;
    }
    Ok(0)
}

/// The sweep and the answer on one game instance (building a game, young's suffix
/// templates say, is not free). Under MPI the ranks sweep together and only rank 0 has
/// the answer (see `distributed`).
struct ContestAnswer;

impl Visitor for ContestAnswer {
    type Output = Option<String>;

    fn visit<G: Registered>(self, game: G) -> Result<Option<String>> {
        #[cfg(feature = "mpi")]
        if crate::distributed::under_mpi() {
            return crate::distributed::solve(&game);
        }
        let value = build::solve(&game, Driver::Parallel, &Silent)
            .map_err(|e| e.then_say(game.when_too_large()))?;
        Ok(Some(game.contest_answer(value)))
    }
}
