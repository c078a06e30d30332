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

pub fn run(args: Args, command: clap::Command) -> Result<i32> {
    let mut script = Vec::new();
    let mut command = visible(&command);
    clap_complete::generate(args.shell, &mut command, "retro", &mut script);
    super::write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(0)
}

/// `command` with only what `--help` shows: the generators offer every argument they are
/// given, hidden test hooks (`--stop-after-layer`, `--crash-before-step`) included.
pub fn visible(command: &clap::Command) -> clap::Command {
    let mut shown = clap::Command::new(command.get_name().to_string())
        .args(
            command
                .get_arguments()
                .filter(|a| !a.is_hide_set())
                .cloned(),
        )
        .subcommands(
            command
                .get_subcommands()
                .filter(|s| !s.is_hide_set())
                .map(visible),
        );
    if let Some(about) = command.get_about() {
        shown = shown.about(about.clone());
    }
    if let Some(about) = command.get_long_about() {
        shown = shown.long_about(about.clone());
    }
    if let Some(version) = command.get_version() {
        shown = shown.version(version.to_string());
    }
    for alias in command.get_visible_aliases() {
        shown = shown.visible_alias(alias.to_string());
    }
    shown
}
