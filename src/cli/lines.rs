//! Reading stdin a line at a time with a bound on each line, so a huge line (or a
//! stream with no newline) costs at most `MAX_LINE` bytes of memory.

use std::io::BufRead;

/// Longest input line `query --batch` and `play` accept: a position or a move of any
/// board we can build is far shorter, and a bound keeps one huge line from filling memory.
pub const MAX_LINE: usize = 1 << 16;

/// One line read by `read_line`.
pub enum Line<'a> {
    /// The line, without its line ending.
    Bytes(&'a [u8]),
    /// Longer than `MAX_LINE`; the rest of it was skipped.
    TooLong,
}

/// The next line without its line ending, reading at most `MAX_LINE` bytes of it into
/// memory; None at the end of input.
pub fn read_line<'a>(
    input: &mut impl BufRead,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Option<Line<'a>>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long && buf.len() + part.len() <= MAX_LINE {
            buf.extend_from_slice(part);
        } else {
            too_long = true;
            buf.clear();
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(Line::Bytes(buf)))
}
