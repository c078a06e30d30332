//! `retro man`: the manual pages, rendered from the clap definitions: `retro(1)`, and a
//! page per subcommand (`retro-build(1)`, ...) with its options, examples and exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{EXIT_CODES, Error, Result, io_error};
use crate::table::partial::{Kind, Partial};

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
    /// of printing one; each is written whole under a temporary name, then renamed over
    /// its own (a link there is replaced, a FIFO, directory or device refused).
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    dir: Option<PathBuf>,
}

/// What every page ends with: the exit codes all subcommands share, from the table the
/// program's own exit reads (`EXIT_CODES`), one entry per code.
fn exit_status() -> String {
    let mut codes: Vec<i32> = EXIT_CODES.iter().map(|&(_, code, _)| code).collect();
    codes.sort_unstable();
    codes.dedup();
    let mut text = String::from(".SH \"EXIT STATUS\"\n");
    for code in codes {
        let said: Vec<&str> = EXIT_CODES
            .iter()
            .filter(|&&(_, c, _)| c == code)
            .map(|&(_, _, words)| words)
            .collect();
        text.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", roff(&said.join(" "))));
    }
    text
}

/// Plain text as a roff text line: backslashes and minus signs escaped, as clap_mangen
/// writes them.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

/// The page's `after_help` (clap_mangen's EXTRA section: one roff line per line of it) as
/// sections of their own, their lines kept as `--help` shows them: a line `Examples:`
/// starts EXAMPLES, a line `Games: ...` starts GAMES with the rest of the line as its
/// first paragraph; lines before either are NOTES.
fn extra_sections(extra: &str) -> String {
    let mut sections: Vec<(&str, Option<&str>, Vec<&str>)> = Vec::new();
    for line in extra.lines() {
        if line == "Examples:" {
            sections.push(("EXAMPLES", None, Vec::new()));
        } else if let Some(intro) = line.strip_prefix("Games: ") {
            sections.push(("GAMES", Some(intro), Vec::new()));
        } else {
            if sections.is_empty() {
                sections.push(("NOTES", None, Vec::new()));
            }
            if let Some((_, _, lines)) = sections.last_mut() {
                lines.push(line);
            }
        }
    }
    let mut text = String::new();
    for (heading, intro, mut lines) in sections {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        text.push_str(&format!(".SH {heading}\n"));
        if let Some(intro) = intro {
            text.push_str(&format!("{intro}\n"));
        }
        text.push_str(&format!(".nf\n{}\n.fi\n", lines.join("\n")));
    }
    text
}

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
    // clap_mangen puts `after_help` (the examples, the games) under EXTRA, refilled; keep
    // its lines as `--help` shows them, under the names man pages use. EXTRA runs to the
    // next section (VERSION on the page of `retro`) or the end.
    if let Some(at) = page.find(".SH EXTRA\n") {
        let body = &page[at + ".SH EXTRA\n".len()..];
        let end = body.find("\n.SH ").map_or(body.len(), |i| i + 1);
        page = format!(
            "{}{}{}",
            &page[..at],
            extra_sections(&body[..end]),
            &body[end..]
        );
    }
    page.push_str(&exit_status());
    Ok(page)
}

/// Every page into `dir`, which must exist: retro.1 and one per subcommand.
///
/// Each page is written as `build` and `export` write their output: into `NAME.1.partial`
/// (opened without following a link, locked, refused if a stranger's file is there),
/// synced, then renamed over `NAME.1`, so a page is whole or absent, never cut short by a
/// full disk. A link at `NAME.1` is replaced by the page (its target is untouched); a
/// directory, FIFO, device or socket there is refused before any page is written.
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
    let pages: Vec<(PathBuf, String)> = pages
        .into_iter()
        .map(|(name, text)| (dir.join(format!("{name}.1")), text))
        .collect();
    for (path, _) in &pages {
        check_page_path(path)?;
    }
    for (path, text) in &pages {
        write_page(path, text)?;
    }
    super::outln!(
        "{}: {} pages (retro.1, retro-build.1, ...)",
        dir.display(),
        pages.len()
    )?;
    Ok(0)
}

/// Refuse a page's name that is taken by something a rename must not replace: writing to
/// a FIFO would wait for a reader for ever, and a directory or a device is not a page.
fn check_page_path(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_symlink() => Err(Error::input(format!(
            "{}: is {}, not a manual page; retro replaces only files and links there: remove it",
            path.display(),
            crate::table::reader::file_kind(&meta.file_type())
        ))),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(path, e)),
    }
}

/// `text` under `path`, through its partial file.
fn write_page(path: &Path, text: &str) -> Result<()> {
    let mut partial = Partial::lock(path, Kind::Page)?;
    let written = partial.start_over().and_then(|()| {
        let file = &mut partial.file;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| io_error(&partial.path, e))?;
        std::fs::rename(&partial.path, path).map_err(|e| io_error(path, e))
    });
    if written.is_err() {
        // Still locked, so the partial file is ours; the write's error is the news, not
        // whether the partial file could be removed.
        let _ = std::fs::remove_file(&partial.path);
    }
    written
}
