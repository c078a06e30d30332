//! `retro man`: the manual pages, rendered from the clap definitions: `retro(1)`, and a
//! page per subcommand (`retro-build(1)`, ...) with its options, examples and exit codes.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, io_error};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro man > retro.1 && man ./retro.1
  retro man build | man -l -
  retro man --dir ~/.local/share/man/man1     then: man retro-build")]
pub struct Args {
    /// A subcommand's page (`build`, `query`, ...); without it, the page of `retro`.
    #[arg(value_name = "SUBCOMMAND")]
    command: Option<String>,
    /// Write every page (retro.1 and retro-SUBCOMMAND.1 each) into this directory instead
    /// of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    dir: Option<PathBuf>,
}

/// What every page ends with: the exit codes all subcommands share.
const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success.
.TP
\fB1\fR
The work failed: a file could not be read or written, a table is damaged or was changed
while read, a rank of an MPI job failed.
.TP
\fB2\fR
Bad input: arguments, a board, a position, a file that is not a retro table, a board too
large for the memory or the disk.
"#;

pub fn run(args: Args, mut command: clap::Command) -> Result<i32> {
    // Built, so that the `help` subcommand the top page names is there too.
    command.build();
    if let Some(dir) = &args.dir {
        return write_all(dir, &command);
    }
    let page = match &args.command {
        None => page(command.clone(), "retro")?,
        Some(name) => {
            let Some(sub) = command.find_subcommand(name) else {
                let names: Vec<&str> = command.get_subcommands().map(|s| s.get_name()).collect();
                return Err(Error::input(format!(
                    "no subcommand {}: retro has {}",
                    crate::error::excerpt(name),
                    names.join(", ")
                )));
            };
            page(sub.clone(), &format!("retro-{name}"))?
        }
    };
    super::write_stdout(&page)?;
    Ok(0)
}

/// The page of `command` under the name `name` (`retro-build`), exit codes appended.
fn page(command: clap::Command, name: &str) -> Result<String> {
    let bin = name.replacen('-', " ", 1);
    let command = command.name(name.to_string()).bin_name(bin);
    let mut roff = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut roff)
        .map_err(|e| Error::io("rendering the manual page", e))?;
    let mut page = String::from_utf8_lossy(&roff).into_owned();
    // clap_mangen puts `after_help` (the examples) under EXTRA, refilled; keep its lines
    // as `--help` shows them, under the name man pages use.
    if let Some(at) = page.find(".SH EXTRA\n") {
        let body = &page[at + ".SH EXTRA\n".len()..];
        let (heading, body) = match body.strip_prefix("Examples:\n") {
            Some(rest) => ("EXAMPLES", rest),
            None => ("NOTES", body),
        };
        page = format!("{}.SH {heading}\n.nf\n{body}.fi\n", &page[..at]);
    }
    page.push_str(EXIT_STATUS);
    Ok(page)
}

/// Every page into `dir`, which must exist: retro.1 and one per subcommand.
fn write_all(dir: &Path, command: &clap::Command) -> Result<i32> {
    if !dir.is_dir() {
        return Err(Error::input(format!(
            "{}: not a directory (create it first)",
            dir.display()
        )));
    }
    let mut pages = vec![("retro".to_string(), page(command.clone(), "retro")?)];
    for sub in command.get_subcommands() {
        let name = format!("retro-{}", sub.get_name());
        pages.push((name.clone(), page(sub.clone(), &name)?));
    }
    for (name, text) in &pages {
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, text).map_err(|e| io_error(&path, e))?;
    }
    super::outln!(
        "{}: {} pages (retro.1, retro-build.1, ...)",
        dir.display(),
        pages.len()
    )?;
    Ok(0)
}
