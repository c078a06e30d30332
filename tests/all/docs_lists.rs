//! The pages' lists of games against the registry: wherever README.md, python/README.md or
//! a page of docs/ lists the games that fold symmetric positions, or the games that end in a
//! win, a loss, a tie or a draw, the list names every such game `retro::Builtin` has, so a
//! game that joins the registry or starts to fold fails here until the pages say so.
//!
//! Which games fold and which end in a result comes from the games themselves: a board of
//! each (`Registry::random`, 3 x 3 and 4 x 4, where the game has one) is built through the
//! registry and asked `Game::symmetries` (more than 1: it folds) and `Game::values` (not
//! `Values::Scores`: it ends in a result).
//!
//! How a list is found. A list is two or more game names joined by `,`, `and` or `or`
//! (`mnk, connect, Teeko and Quixo`; backticks and emphasis left out). It is a list of the
//! games that fold when it names at least three of them and no other game, and a word of
//! folding stands beside it in the same clause (at most 40 characters away, with no `,`, `;`
//! or `.` between): `fold`, `folds`, `folded`, `folding` or `one entry per orbit`, as in
//! "mnk, connect, Teeko, Quixo and Morris fold" or "a folded table (mnk, ...)". A list of the
//! games with results is found alike, beside `win`, `loss`, `tie`, `draw`, `result`,
//! `outcome` or `remoteness`. A paragraph (or list item, table row, line of code) that holds
//! one complete list may go on to name some of the games ("mnk, Teeko and Quixo fold the
//! square's 8"), and a sentence that names a test file (`test_fold.py`, `tests/all/x.rs`)
//! says what that test covers, not which games there are.
//!
//! And the figures the pages quote from the binary (the connect ranking's limit, a plan's
//! totals, a result, a table's size) against what it prints now (`QUOTES`).

use std::path::{Path, PathBuf};

use retro::Registry;
use retro::game::{Registered, Values, Visitor};

/// A game of the registry, and what the pages' lists say of it.
struct Kind {
    name: &'static str,
    folds: bool,
    results: bool,
}

/// How many positions a game folds onto an entry at most, and whether its values are
/// results (win, loss, tie, draw) rather than scores.
struct Ask;

impl Visitor for Ask {
    type Output = (usize, bool);
    fn visit<G: Registered>(self, game: G) -> retro::Result<(usize, bool)> {
        Ok((
            game.symmetries(),
            !matches!(game.values(), Values::Scores { .. }),
        ))
    }
}

/// Every game of the registry, asked on its boards of 3 x 3 and 4 x 4 (those it has).
fn registry() -> Vec<Kind> {
    retro::Builtin::names()
        .into_iter()
        .map(|name| {
            let answers: Vec<(usize, bool)> = [(3, 3), (4, 4)]
                .into_iter()
                .filter_map(|size| {
                    let board = retro::Builtin::random(name, size, 7, 9, "--max").ok()?;
                    retro::Builtin::visit(&board, Ask).ok()
                })
                .collect();
            assert!(!answers.is_empty(), "{name}: no 3 x 3 or 4 x 4 board");
            Kind {
                name,
                folds: answers.iter().any(|&(symmetries, _)| symmetries > 1),
                results: answers.iter().any(|&(_, results)| results),
            }
        })
        .collect()
}

/// What a list may be a list of.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Of {
    Folding,
    Results,
}

impl Of {
    fn words(self) -> &'static str {
        match self {
            Of::Folding => "the games that fold symmetric positions",
            Of::Results => "the games that end in a win, a loss, a tie or a draw",
        }
    }

    /// Where a word that says what the list is about starts and ends in `s` (lower case).
    fn context(self, s: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        match self {
            Of::Folding => {
                for word in ["folding", "folded", "folds", "fold"] {
                    // Not `--no-fold`, `test_fold`, `unfolded`, `fold=False`.
                    out.extend(words(s, word, |c| c == '-' || c == '_', |c| c == '='));
                }
                out.extend(words(s, "one entry per orbit", |_| false, |_| false));
            }
            Of::Results => {
                for word in [
                    "win",
                    "loss",
                    "tie",
                    "draw",
                    "result",
                    "results",
                    "outcome",
                    "outcomes",
                    "remoteness",
                ] {
                    out.extend(words(s, word, |_| false, |_| false));
                }
            }
        }
        out
    }
}

/// Where `word` stands alone in `s`: not inside a longer word, nor after a character
/// `before` refuses, nor before one `after` refuses.
fn words(
    s: &str,
    word: &str,
    before: impl Fn(char) -> bool,
    after: impl Fn(char) -> bool,
) -> Vec<(usize, usize)> {
    let inside = |c: char| c.is_ascii_alphanumeric() || c == '_';
    s.match_indices(word)
        .filter(|&(at, _)| {
            let prev = s[..at].chars().next_back();
            let next = s[at + word.len()..].chars().next();
            !prev.is_some_and(|c| inside(c) || before(c))
                && !next.is_some_and(|c| inside(c) || after(c))
        })
        .map(|(at, _)| (at, at + word.len()))
        .collect()
}

/// A list of games in a sentence: where it starts and ends, and the names in it.
struct List {
    start: usize,
    end: usize,
    names: Vec<&'static str>,
}

/// Every run of two or more game names joined by `,`, `and` or `or` in `s` (lower case).
fn lists(s: &str, games: &[Kind]) -> Vec<List> {
    let mut found: Vec<(usize, usize, &'static str)> = games
        .iter()
        .flat_map(|g| {
            words(s, g.name, |_| false, |_| false)
                .into_iter()
                .map(move |(a, b)| (a, b, g.name))
        })
        .collect();
    found.sort();
    let mut out: Vec<List> = Vec::new();
    let mut run: Option<List> = None;
    for (a, b, name) in found {
        if let Some(list) = run.as_mut() {
            let gap: String = s[list.end..a]
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if matches!(gap.as_str(), "," | "and" | ",and" | "or" | ",or") {
                list.end = b;
                list.names.push(name);
                continue;
            }
        }
        out.extend(run.take());
        run = Some(List {
            start: a,
            end: b,
            names: vec![name],
        });
    }
    out.extend(run);
    out.retain(|list| list.names.len() >= 2);
    out
}

/// Whether a word of `context` stands beside the list, in the same clause.
fn beside(s: &str, list: &List, context: &[(usize, usize)]) -> bool {
    context.iter().any(|&(a, b)| {
        let between = if b <= list.start {
            &s[b..list.start]
        } else if a >= list.end {
            &s[list.end..a]
        } else {
            return false;
        };
        between.len() <= 40 && !between.contains([',', ';', '.'])
    })
}

/// Whether a sentence names a test file, and so says what that test covers.
fn names_a_test(sentence: &str) -> bool {
    sentence
        .split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
        .any(|token| token.contains("test") && (token.ends_with(".py") || token.ends_with(".rs")))
}

/// A paragraph, list item, table row or line of code, with its first line's number.
struct Unit {
    line: usize,
    text: String,
}

fn units(page: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut current: Option<Unit> = None;
    let mut code = false;
    for (i, line) in page.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            out.extend(current.take());
            code = !code;
            continue;
        }
        if code {
            out.push(Unit {
                line: i + 1,
                text: line.to_string(),
            });
            continue;
        }
        let starts = ["- ", "* ", "|", "#"]
            .iter()
            .any(|&p| trimmed.starts_with(p));
        if trimmed.is_empty() || starts {
            out.extend(current.take());
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(unit) = current.as_mut() {
            unit.text.push(' ');
            unit.text.push_str(trimmed);
        } else {
            current = Some(Unit {
                line: i + 1,
                text: trimmed.to_string(),
            });
        }
    }
    out.extend(current);
    out
}

/// What the check found on a page: the complete lists, and each list that leaves out
/// games, as a message.
#[derive(Default)]
struct Found {
    complete: Vec<Of>,
    wrong: Vec<String>,
}

fn check(name: &str, page: &str, games: &[Kind]) -> Found {
    let mut found = Found::default();
    for unit in units(page) {
        let text = unit.text.replace(['`', '*'], "").to_ascii_lowercase();
        for of in [Of::Folding, Of::Results] {
            let want: Vec<&str> = games
                .iter()
                .filter(|g| match of {
                    Of::Folding => g.folds,
                    Of::Results => g.results,
                })
                .map(|g| g.name)
                .collect();
            let least = want.len().clamp(2, 3);
            let mut short = Vec::new();
            let mut whole = false;
            for sentence in text.split(". ").filter(|s| !names_a_test(s)) {
                let context = of.context(sentence);
                for list in lists(sentence, games) {
                    let mut names = list.names.clone();
                    names.sort();
                    names.dedup();
                    if names.len() < least
                        || !names.iter().all(|n| want.contains(n))
                        || !beside(sentence, &list, &context)
                    {
                        continue;
                    }
                    let missing: Vec<&str> = want
                        .iter()
                        .copied()
                        .filter(|n| !names.contains(n))
                        .collect();
                    if missing.is_empty() {
                        whole = true;
                    } else {
                        short.push(format!(
                            "{name} line {}: \"{}\" lists {} but leaves out {}",
                            unit.line,
                            &sentence[list.start..list.end],
                            of.words(),
                            missing.join(", ")
                        ));
                    }
                }
            }
            if whole {
                found.complete.push(of);
            } else {
                found.wrong.extend(short);
            }
        }
    }
    found
}

/// README.md, python/README.md, the Python package's docstrings and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    [
        root.join("README.md"),
        root.join("python/README.md"),
        root.join("python/retro/__init__.py"),
    ]
    .into_iter()
    .chain(docs)
    .collect()
}

/// `retro --help` and the `--help` of each command it lists, by the command line.
fn helps() -> Vec<(String, String)> {
    let help = |args: &[&str]| crate::common::ok(&crate::common::retro(args, ""));
    let top = help(&["--help"]);
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|&c| c != "help")
        .map(str::to_string)
        .collect();
    assert!(
        commands.len() >= 10,
        "commands in `retro --help`: {commands:?}"
    );
    std::iter::once(("retro --help".to_string(), top))
        .chain(
            commands
                .iter()
                .map(|c| (format!("retro {c} --help"), help(&[c.as_str(), "--help"]))),
        )
        .collect()
}

#[test]
fn every_list_of_the_folding_games_names_them_all() {
    let games = registry();
    assert!(
        games.iter().any(|g| g.folds) && games.iter().any(|g| !g.folds),
        "the registry has games that fold and games that do not"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = Vec::new();
    let mut complete = Vec::new();
    for path in pages() {
        let page = std::fs::read_to_string(&path).expect("read page");
        let name = path.strip_prefix(root).expect("in the repository");
        let found = check(&name.display().to_string(), &page, &games);
        wrong.extend(found.wrong);
        complete.extend(found.complete);
    }
    // And what the binary says: `--help` of every command `retro --help` lists.
    for (name, help) in helps() {
        let found = check(&name, &help, &games);
        wrong.extend(found.wrong);
        complete.extend(found.complete);
    }
    let named = |pick: fn(&Kind) -> bool| {
        let names: Vec<&str> = games.iter().filter(|g| pick(g)).map(|g| g.name).collect();
        names.join(", ")
    };
    assert!(
        wrong.is_empty(),
        "the games that fold are {}; the games with results are {}:\n{}",
        named(|g| g.folds),
        named(|g| g.results),
        wrong.join("\n")
    );
    // The pattern must keep finding the lists the pages have, or it checks nothing.
    for of in [Of::Folding, Of::Results] {
        let n = complete.iter().filter(|&&o| o == of).count();
        assert!(
            n >= 3,
            "{n} complete lists of {} found, where the pages have at least 3",
            of.words()
        );
    }
}

#[test]
fn a_list_that_leaves_a_game_out_is_named() {
    let kind = |name, folds, results| Kind {
        name,
        folds,
        results,
    };
    let games = [
        kind("young", false, false),
        kind("mnk", true, true),
        kind("teeko", true, true),
        kind("quixo", true, true),
        kind("morris", true, true),
    ];
    let page = "Intro.\n\n`mnk`, Teeko and Quixo tables fold symmetric positions\nby default.\n\n\
                - a folded table (mnk, Teeko, Quixo, Morris) only\n\
                - mnk, teeko, quixo and morris fold: win or loss. Then mnk, Teeko and Quixo fold the square's 8.\n\
                - young, mnk, teeko and quixo, folded or not\n\
                - games whose stones move (Teeko, Quixo, Morris), folded tables\n\
                - `test_fold.py`: folded mnk, Teeko and Quixo tables\n\n\
                ```\nx.result  # mnk, teeko, quixo: 'win' or 'loss'\n```\n";
    let found = check("p.md", page, &games);
    assert_eq!(
        found.wrong,
        vec![
            "p.md line 3: \"mnk, teeko and quixo\" lists the games that fold symmetric \
             positions but leaves out morris",
            "p.md line 13: \"mnk, teeko, quixo\" lists the games that end in a win, a loss, \
             a tie or a draw but leaves out morris",
        ]
    );
    assert_eq!(found.complete, vec![Of::Folding, Of::Folding, Of::Results]);
}

/// A figure a page quotes from the binary: the page's text and the binary's output, each a
/// pattern where `{}` captures a figure and `{_}` stands for any text; the figures captured
/// on the page must be those captured in the output of `command` (stdout and stderr; `{dir}`
/// in it is a scratch folder), in order, thousands separators aside.
struct Quote {
    page: &'static str,
    says: &'static str,
    command: &'static [&'static str],
    prints: &'static str,
}

/// Text with every run of white space one space, as a page's lines read once joined.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the `{}` of `pattern` stand for at its first match in `text` (flattened), or None
/// where it does not match. A capture ends where the pattern's next literal text starts.
fn captures(pattern: &str, text: &str) -> Option<Vec<String>> {
    let text = flat(text);
    let mut parts = Vec::new();
    let mut rest = pattern;
    let mut kinds = Vec::new();
    while let Some(at) = rest.find('{') {
        let end = rest[at..].find('}')? + at;
        parts.push(&rest[..at]);
        kinds.push(&rest[at + 1..end] != "_");
        rest = &rest[end + 1..];
    }
    parts.push(rest);
    // Each place the first literal text matches, until the rest matches after it.
    'start: for (start, _) in text.match_indices(parts[0]) {
        let mut at = start + parts[0].len();
        let mut found = Vec::new();
        for (i, part) in parts[1..].iter().enumerate() {
            let next = if part.is_empty() {
                // A capture at the end takes the rest of the word.
                text[at..].find(' ').map_or(text.len(), |n| at + n)
            } else {
                match text[at..].find(part) {
                    Some(n) => at + n,
                    None => continue 'start,
                }
            };
            if kinds[i] {
                found.push(without_separators(&text[at..next]));
            }
            at = next + part.len();
        }
        return Some(found);
    }
    None
}

/// `1,048,576` as `1048576`: a comma between two digits dropped, any other kept.
fn without_separators(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            let digit = |j: Option<usize>| {
                j.and_then(|j| chars.get(j))
                    .is_some_and(|c| c.is_ascii_digit())
            };
            !(c == ',' && digit(i.checked_sub(1)) && digit(Some(i + 1)))
        })
        .map(|(_, &c)| c)
        .collect()
}

/// The figures the pages quote from the binary's output. `retro plan connect 7x6` takes
/// the binary 20 s of CPU; the rest take a moment.
const QUOTES: &[Quote] = &[
    Quote {
        page: "docs/games.md",
        says: "which must be at most 2^20 ({})",
        command: &["gen", "connect", "9x4"],
        prints: "more than the {} the ranking tabulates",
    },
    Quote {
        page: "README.md",
        says: "4x4k3 (x wins with its {_} stone, ply {})",
        command: &["solve", "mnk", "4x4k3"],
        prints: "x completes a line at ply {},",
    },
    Quote {
        page: "docs/games.md",
        says: "With K = 3, 4 x 4 is a win for x, with its {_} stone (ply {})",
        command: &["solve", "connect", "4x4k3"],
        prints: "x completes a line at ply {},",
    },
    Quote {
        page: "docs/performance.md",
        says: "| quixo 3x3 | {} | {} | x wins in 7 | | {_} | {} |",
        command: &["build", "quixo", "3x3", "-o", "{dir}/q.retro"],
        prints: "q.retro: {} positions ({} entries: {_} s, {} (",
    },
    Quote {
        page: "README.md",
        says: "Connect Four (7.07e13) on 256 ranks, {} each and {} of disk",
        command: &[
            "plan",
            "connect",
            "7x6",
            "--ranks",
            "256",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} ({_}), table {},",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| connect 7x6 (Connect Four) | 7.07e13 | 256 | {_}, {}, {_} | {} | {} s |",
        command: &[
            "plan",
            "connect",
            "7x6",
            "--ranks",
            "256",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} ({_}), table {}, {_} estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| 256 | 1.4e11 | {} | {_} | {} plain | {} s |",
        command: &[
            "plan",
            "connect",
            "7x6",
            "--ranks",
            "256",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} ({_}), table {}, {_} estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| 256 | 1.4e11 | {_} | {} |",
        command: &[
            "plan",
            "connect",
            "7x6",
            "--ranks",
            "256",
            "--threads",
            "32",
            "--total",
        ],
        prints: "recv {} and sent",
    },
    Quote {
        page: "docs/mpi.md",
        says: "$ retro plan connect 7x6 --ranks 256 --threads 32 --total {}",
        command: &[
            "plan",
            "connect",
            "7x6",
            "--ranks",
            "256",
            "--threads",
            "32",
            "--total",
        ],
        prints: "{}",
    },
    // What a build needs, as `retro plan` says it (the one figure the build refuses by).
    Quote {
        page: "README.md",
        says: "young 20 x 20 (1.38e11 positions) on 64 ranks takes {} of memory each and a {} table",
        command: &["plan", "young", "20x20", "--ranks", "64", "--total"],
        prints: "peak memory per rank {} ({_}), table {},",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| young 20x20 | 1.38e11 | 16 | {_}, {}, {_} | {} | {} s |",
        command: &[
            "plan",
            "young",
            "20x20",
            "--ranks",
            "16",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} ({_}), table {}, {_} estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| young 20x20 | 1.38e11 | 16 | {_}, {_}, {} |",
        command: &[
            "plan",
            "young",
            "20x20",
            "--ranks",
            "16",
            "--threads",
            "32",
            "--total",
        ],
        prints: "recv {} and sent",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| young 20x20 | 1.38e11 | 64 | {_}, {}, {_} | {} | {} s |",
        command: &[
            "plan",
            "young",
            "20x20",
            "--ranks",
            "64",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} ({_}), table {}, {_} estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| young 20x20 | 1.38e11 | 64 | {_}, {_}, {} |",
        command: &[
            "plan",
            "young",
            "20x20",
            "--ranks",
            "64",
            "--threads",
            "32",
            "--total",
        ],
        prints: "recv {} and sent",
    },
    Quote {
        page: "docs/mpi.md",
        says: "--threads 32 --total`, 1 s): {_} entries per rank, peak memory {} per rank (layers {}, its orbit tables {}), a table of {} in i8 (at most {} where a value does not fit a byte), {_} received per rank, {} s estimated",
        command: &[
            "plan",
            "quixo",
            "5x5",
            "--ranks",
            "16",
            "--threads",
            "32",
            "--total",
        ],
        prints: "peak memory per rank {} (layers {}, ranking tables {}), table {} in i8 (at most {} where {_} estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "does not fit a byte), {} received per rank",
        command: &[
            "plan",
            "quixo",
            "5x5",
            "--ranks",
            "16",
            "--threads",
            "32",
            "--total",
        ],
        prints: "recv {} and sent",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| teeko | `retro build teeko --threads 1` | `retro plan teeko 5x5 --total` | {} s |",
        command: &["plan", "teeko", "5x5", "--total"],
        prints: "estimated {} s",
    },
    Quote {
        page: "docs/mpi.md",
        says: "| teeko | `retro build teeko --threads 1` | `retro plan teeko 5x5 --total` | {_} | {_} | {} |",
        command: &["plan", "teeko", "5x5", "--total"],
        prints: "peak memory per rank {} (",
    },
    Quote {
        page: "docs/games.md",
        says: "(16 positions to an entry), a table of {} in one byte a value, as a build writes it where every value fits (at most {} where",
        command: &["plan", "quixo", "5x5", "--total"],
        prints: "), table {} in i8 (at most {} where",
    },
    Quote {
        page: "docs/games.md",
        says: "| `5x5 min=21` (not built here) | {_} | | `retro plan`: {} s on one thread",
        command: &["plan", "quixo", "5x5", "min=21", "--total"],
        prints: "estimated {} s",
    },
    Quote {
        page: "docs/games.md",
        says: "(it says {} s for `min=22`)",
        command: &["plan", "quixo", "5x5", "min=22", "--total"],
        prints: "estimated {} s",
    },
    Quote {
        page: "docs/games.md",
        says: "| `retro plan`: {_} | at most {} |",
        command: &["plan", "quixo", "5x5", "min=21", "--total"],
        prints: "(at most {} where",
    },
    Quote {
        page: "docs/performance.md",
        says: "the time at {} s of computing ({} s of CPU time on one thread",
        command: &["plan", "morris", "nine", "--threads", "2", "--total"],
        prints: "estimated {} s (CPU time: {} s",
    },
];

#[test]
fn figures_the_pages_quote_are_what_the_binary_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut outputs: Vec<(Vec<String>, String)> = Vec::new();
    let mut wrong = Vec::new();
    for quote in QUOTES {
        let page = std::fs::read_to_string(root.join(quote.page)).expect("read page");
        let command: Vec<String> = quote
            .command
            .iter()
            .map(|a| a.replace("{dir}", dir.path().to_str().unwrap()))
            .collect();
        // One run of each command (the plan is the slow one).
        let output = match outputs.iter().find(|(c, _)| *c == command) {
            Some((_, output)) => output.clone(),
            None => {
                let args: Vec<&str> = command.iter().map(String::as_str).collect();
                let out = crate::common::retro(&args, "");
                let output = format!(
                    "{}{}",
                    crate::common::text(&out.stdout),
                    crate::common::text(&out.stderr)
                );
                outputs.push((command.clone(), output.clone()));
                output
            }
        };
        let on_page = captures(quote.says, &page);
        let printed = captures(quote.prints, &output);
        // A quote of a whole output: the page shows it line for line.
        let (on_page, printed) = match quote.prints {
            "{}" => (
                on_page.map(|_| vec![flat(&output)]),
                page.contains(output.trim_end())
                    .then(|| vec![flat(&output)]),
            ),
            _ => (on_page, printed),
        };
        match (on_page, printed) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => wrong.push(format!(
                "{}: \"{}\" says {a:?}; retro {} prints {b:?}:\n{output}",
                quote.page,
                quote.says,
                command.join(" ")
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_connect_boards_games_md_names_are_refused_or_ranked_as_it_says() {
    let page = flat(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/games.md"))
            .unwrap(),
    );
    let said = captures("So 7 x 6 ({_}) ranks, while {} are refused.", &page)
        .expect("games.md names the connect boards refused");
    // "7 x 7 (2.1 million height vectors), 9 x 4 (1.95 million), ... and 8 x 7 (...)"
    let refused: Vec<String> = said[0]
        .split([',', '(', ')'])
        .map(|s| s.trim().trim_start_matches("and ").to_string())
        .filter(|s| s.contains(" x ") && s.len() <= 7)
        .collect();
    assert!(refused.len() >= 4, "{refused:?}");
    let generate =
        |size: &str| crate::common::retro(&["gen", "connect", &size.replace(' ', "")], "");
    crate::common::ok(&generate("7 x 6"));
    for size in refused {
        crate::common::fails(&generate(&size), 2, "column-height vectors");
    }
}

/// Whether each game's own test of a position tells exactly which positions play reaches
/// (`Gameplay::check_reachable_is_exact`), on its 3 x 3 or 4 x 4 board.
struct Exact;

impl Visitor for Exact {
    type Output = bool;
    fn visit<G: Registered>(self, game: G) -> retro::Result<bool> {
        Ok(game.check_reachable_is_exact())
    }
}

#[test]
fn the_games_whose_own_test_of_reach_is_exact_are_named_right() {
    let exact: Vec<&str> = retro::Builtin::names()
        .into_iter()
        .filter(|name| {
            [(3, 3), (4, 4)].into_iter().any(|size| {
                retro::Builtin::random(name, size, 7, 9, "--max")
                    .ok()
                    .and_then(|board| retro::Builtin::visit(&board, Exact).ok())
                    .unwrap_or(false)
            })
        })
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let help = crate::common::ok(&crate::common::retro(&["stats", "--help"], ""));
    let commands = std::fs::read_to_string(root.join("docs/commands.md")).unwrap();
    for (name, text, pattern) in [
        (
            "retro stats --help",
            help.as_str(),
            "where a position shows it ({})",
        ),
        (
            "docs/commands.md",
            commands.as_str(),
            "Where the game's test of a position is exact ({})",
        ),
    ] {
        let said = captures(pattern, text).unwrap_or_else(|| panic!("{name}: {pattern}"));
        let mut named: Vec<String> = said[0]
            .split(',')
            .map(|s| s.trim().to_ascii_lowercase())
            .collect();
        named.sort();
        let mut want: Vec<String> = exact.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(named, want, "{name} names the games whose test is exact");
    }
}
