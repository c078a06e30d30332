//! `retro man`: the manual page, rendered from the clap definitions.

use crate::error::{Error, Result};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  retro man > retro.1 && man ./retro.1
  retro man | gzip > /usr/local/share/man/man1/retro.1.gz")]
pub struct Args {}

pub fn run(_args: Args, command: clap::Command) -> Result<i32> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .map_err(|e| Error::io("rendering the manual page", e))?;
    super::write_stdout(&String::from_utf8_lossy(&page))?;
    Ok(0)
}
