//! `retro completions SHELL`: a completion script, generated from the same clap
//! definitions the binary parses with, so it never falls behind the commands.

use clap_complete::Shell;

use crate::error::Result;

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro completions bash > ~/.local/share/bash-completion/completions/retro
  retro completions zsh > \"${fpath[1]}/_retro\"")]
pub struct Args {
    /// The shell to complete for.
    shell: Shell,
}

pub fn run(args: Args, mut command: clap::Command) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "retro", &mut script);
    super::write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(0)
}
