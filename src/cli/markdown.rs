//! Markdown pages as terminal text (`retro help games`): headings underlined, emphasis
//! and link targets dropped, tables aligned in columns, fenced code indented. Inline code
//! keeps its backticks, the plain-text way of quoting what is typed.

/// `page` as text for a terminal.
pub fn to_text(page: &str) -> String {
    let mut out = String::new();
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if line.trim_start().starts_with('|') {
            // A table's separator row (`|---|---|`) says nothing a terminal shows.
            if !line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
                table.push(cells(line));
            }
            continue;
        }
        flush_table(&mut table, &mut out);
        match heading(line) {
            Some((level, title)) => {
                let title = inline(title);
                let rule = if level == 1 { '=' } else { '-' };
                let width = title.chars().count();
                out.push_str(&title);
                out.push('\n');
                if level <= 2 {
                    out.extend(std::iter::repeat_n(rule, width));
                    out.push('\n');
                }
            }
            None => {
                out.push_str(&inline(line));
                out.push('\n');
            }
        }
    }
    flush_table(&mut table, &mut out);
    out
}

/// A heading's level and title (`## young`).
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.chars().take_while(|&c| c == '#').count();
    match level {
        1..=6 => line[level..].strip_prefix(' ').map(|t| (level, t.trim())),
        _ => None,
    }
}

/// A table row's cells, as text.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| inline(c.trim())).collect()
}

/// The rows gathered so far, in aligned columns, the first row underlined.
fn flush_table(table: &mut Vec<Vec<String>>, out: &mut String) {
    if table.is_empty() {
        return;
    }
    let columns = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|j| {
            table
                .iter()
                .filter_map(|r| r.get(j))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, row) in table.iter().enumerate() {
        let line: Vec<String> = (0..columns)
            .map(|j| {
                let cell = row.get(j).map_or("", String::as_str);
                format!("{cell:<w$}", w = widths[j])
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    table.clear();
}

/// A line's inline marks: `[text](target)` becomes its text (an outside address is kept
/// in parentheses), `**strong**` and `*emphasis*` lose their stars; code spans are kept
/// as they are, stars and brackets included.
fn inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            // A code span, up to its closing backtick.
            let end = rest[1..].find('`').map_or(rest.len(), |i| i + 2);
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        if c == '['
            && let Some(close) = rest.find("](")
            && rest.find(']') == Some(close)
            && let Some(end) = rest[close..].find(')')
        {
            let text = &rest[1..close];
            let target = &rest[close + 2..close + end];
            out.push_str(&inline(text));
            if target.starts_with("http") {
                out.push_str(&format!(" ({target})"));
            }
            rest = &rest[close + end + 1..];
            continue;
        }
        if rest.starts_with("**") {
            rest = &rest[2..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_links_emphasis_and_tables_become_text() {
        let page = "# The games\n\nSee [format](format.md#layout), **x first**, `a|b **c**`.\n\n\
                    | game | root |\n|---|---|\n| `six` | draw |\n| nine | draw |\n\n## young\n\
                    [site](https://example.org)\n";
        let text = to_text(page);
        assert_eq!(
            text,
            "The games\n=========\n\nSee format, x first, `a|b **c**`.\n\n\
             game   root\n-----  ----\n`six`  draw\nnine   draw\n\nyoung\n-----\n\
             site (https://example.org)\n"
        );
    }
}
