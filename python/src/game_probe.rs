//! What the table object needs of its game, behind a trait object (`Probe`): the game is
//! known only once the table's header is read.

use crate::*;

/// What the table object needs of its game, behind a trait object: the table's game is
/// known only once its header is read (`Builtin::visit`). What the command line answers
/// too (a query, a position at a rank, a layer's size) is the library's `Prober`; what is
/// the package's own (a batch's columns, a layer's rows) is here.
pub(crate) trait Probe: Send + Sync {
    /// The game, as `retro serve` holds it.
    fn prober(&self) -> &dyn Prober;
    /// One chunk of a batch (`query --batch`), its lines separated by line breaks, the
    /// first of them line `first` of the batch: per line its value or outcome into `out`,
    /// or its input error into `bad`; another error (a damaged table) stops the batch.
    fn answer_lines(
        &self,
        table: &retro::Table,
        lines: &str,
        first: usize,
        out: Columns<'_>,
        bad: &mut BadLines<'_>,
    ) -> retro::Result<()>;
    /// Rows `start..` of layer `k` into `out` (as many as it has room for), as
    /// `retro export` writes them; the positions' text and first best moves when asked for,
    /// and each row's orbit size where `out` has room for it.
    fn layer_rows(
        &self,
        table: &retro::Table,
        k: usize,
        start: u64,
        out: Columns<'_>,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerText>;
    /// The names of the best move's integer columns, as `retro export` writes them.
    fn number_columns(&self) -> Vec<&'static str>;
    /// Whether the game's positions hold stones in hand (`Gameplay::hands`).
    fn has_hands(&self) -> bool;
    /// Whether every row's `reachable` is known: the game's own test is exact, or the
    /// table has a start to search from. Otherwise a row the test lets pass is
    /// `REACHABLE_NOT_KNOWN`.
    fn reachable_known(&self) -> bool;
    /// Whether the game's values are wins, losses, ties or draws with a remoteness.
    fn has_outcomes(&self) -> bool {
        self.prober().outcome_of(0, 0).is_some()
    }
}

/// The text columns of a chunk of a layer's rows.
#[derive(Default)]
pub(crate) struct LayerText {
    pub(crate) positions: Vec<String>,
    pub(crate) best_moves: Vec<Option<String>>,
}

/// A table's game, with the positions play reaches where the game cannot tell them from a
/// position alone (`retro::answers::reach`), found the first time a `reachable` column is asked for.
pub(crate) struct Game<G: Registered>(
    G,
    std::sync::OnceLock<Option<retro::answers::reach::Reachable<G>>>,
);

impl<G: Registered> Game<G> {
    /// A value of layer `k` that has no outcome, in a game whose values all have one.
    pub(crate) fn not_a_value(table: &retro::Table, value: i64, k: usize) -> Error {
        Error::corrupt(format!(
            "{}: value {value} in layer {k} is not a value of {}",
            table.path().display(),
            G::NAME
        ))
    }
}

impl<G: Registered> Probe for Game<G> {
    fn prober(&self) -> &dyn Prober {
        &self.0
    }

    fn answer_lines(
        &self,
        table: &retro::Table,
        lines: &str,
        first: usize,
        mut out: Columns<'_>,
        bad: &mut BadLines<'_>,
    ) -> retro::Result<()> {
        let game = &self.0;
        for (i, text) in lines.split('\n').enumerate() {
            let index = first + i;
            if bad.passed(index) {
                break;
            }
            // What `query --batch` does per line: parse, refuse an unreachable position,
            // read one entry.
            let looked_up = retro::answers::probe::position_from_text(game, text)
                .and_then(|pos| game.check_reachable(&pos).map(|()| pos))
                .and_then(|pos| {
                    let k = game.layer_of(&pos);
                    table.value(k, game.rank(&pos)).map(|v| (v, k))
                });
            match looked_up {
                Ok((value, k)) => {
                    if !out.put(i, value, || game.outcome(value, k)) {
                        return Err(Self::not_a_value(table, value, k));
                    }
                }
                Err(e) if e.is_input() => {
                    if !out.results.is_empty() {
                        out.results[i] = NO_RESULT;
                    }
                    if !out.mask.is_empty() {
                        out.mask[i] = 1;
                    }
                    if !bad.record(index, &e) {
                        break;
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn layer_rows(
        &self,
        table: &retro::Table,
        k: usize,
        start: u64,
        mut out: Columns<'_>,
        text: bool,
        moves: bool,
    ) -> retro::Result<LayerText> {
        let game = &self.0;
        let count = out.values.len() / 8;
        let values = table.read_range(k, start, count)?;
        for (i, &value) in values.iter().enumerate() {
            if !out.put(i, value, || game.outcome(value, k)) {
                return Err(Self::not_a_value(table, value, k));
            }
        }
        let mut texts = LayerText::default();
        let orbits = !out.orbit_size.is_empty();
        let reachable = !out.reachable.is_empty();
        let reach = match reachable && !game.check_reachable_is_exact() {
            true => match self.1.get() {
                Some(r) => r.as_ref(),
                None => {
                    let r = retro::answers::reach::Reachable::where_needed(game)?;
                    self.1.get_or_init(|| r).as_ref()
                }
            },
            false => None,
        };
        let hands = !out.hands.is_empty();
        let stones = !out.stones.is_empty();
        if text || moves || orbits || reachable || hands || stones {
            let notation = game.move_notation();
            let mut pos = game.unrank(k, start);
            for (i, &value) in values.iter().enumerate() {
                if i > 0 {
                    game.advance(&mut pos);
                }
                if orbits {
                    // At most the group's order: an i64 holds it.
                    let size = game.orbit_size(&pos) as i64;
                    out.orbit_size[i * 8..i * 8 + 8].copy_from_slice(&size.to_le_bytes());
                }
                if reachable {
                    // An entry is reached where any position it stands for is (a lumped
                    // layer's: where any of the layer's is); without a forward pass, what
                    // the position shows, or 2 where that is not known (a table without a
                    // start of a game whose test is not exact), as export leaves its field
                    // empty.
                    out.reachable[i] = match reach {
                        Some(r) if game.lumped(k) => u8::from(r.count(k) > 0),
                        Some(r) => u8::from(game.images(&pos).iter().any(|p| r.contains(p))),
                        None => match retro::answers::reach::shown_by_position(game, &pos) {
                            Some(reached) => u8::from(reached),
                            None => REACHABLE_NOT_KNOWN,
                        },
                    };
                }
                if stones {
                    let n = u32::try_from(game.stones(&pos)).unwrap_or(u32::MAX);
                    out.stones[i * 4..i * 4 + 4].copy_from_slice(&n.to_le_bytes());
                }
                if hands {
                    let [x, o] = game.hands(&pos).unwrap_or_default();
                    out.hands[i * 8..i * 8 + 4].copy_from_slice(&x.to_le_bytes());
                    out.hands[i * 8 + 4..i * 8 + 8].copy_from_slice(&o.to_le_bytes());
                }
                if text {
                    texts.positions.push(game.format_position(&pos));
                }
                if moves {
                    let best = retro::best_move(game, table, &pos, value)?;
                    // Nobody moves where play has ended, as `retro export` says.
                    out.to_move[i] = match (&best, game.first_to_move(&pos)) {
                        (None, _) => 2,
                        (Some(_), true) => 0,
                        (Some(_), false) => 1,
                    };
                    let row = &mut out.numbers[i * 4 * NUMBERS..(i + 1) * 4 * NUMBERS];
                    for (j, n) in retro::move_numbers(notation, best)
                        .into_iter()
                        .enumerate()
                        .take(NUMBERS)
                    {
                        row[j * 4..j * 4 + 4].copy_from_slice(&n.unwrap_or(0).to_le_bytes());
                    }
                    texts.best_moves.push(best.map(|b| b.text(game)));
                }
            }
        }
        Ok(texts)
    }

    fn number_columns(&self) -> Vec<&'static str> {
        retro::number_columns(self.0.move_notation())
    }

    fn has_hands(&self) -> bool {
        self.0.hands(&self.0.unrank(0, 0)).is_some()
    }

    fn reachable_known(&self) -> bool {
        self.0.check_reachable_is_exact() || self.0.start_position().is_some()
    }
}

/// Builds the `Probe` of a table's game.
pub(crate) struct MakeProbe;

impl Visitor for MakeProbe {
    type Output = Box<dyn Probe>;
    fn visit<G: Registered>(self, game: G) -> retro::Result<Box<dyn Probe>> {
        Ok(Box::new(Game(game, std::sync::OnceLock::new())))
    }
}
