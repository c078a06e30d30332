//! The suffix templates (`Templates`: what they hold) and their building.

use rayon::prelude::*;

use super::*;

impl Young {
    /// Bytes held by the suffix templates.
    pub fn template_bytes(&self) -> usize {
        let t = &self.tpl;
        t.index.len() * 4
            + t.heads.len() * std::mem::size_of::<Head>()
            + t.chains.len() * std::mem::size_of::<SuffixChain>()
            + t.chain_rewards.iter().map(|r| r.len() * 8).sum::<usize>()
            + t.entries.len() * std::mem::size_of::<Entry>()
            + t.kids.len() * std::mem::size_of::<SuffixMove>()
            + t.rows.len()
    }

    /// Number of suffix templates and of their suffixes.
    pub fn template_counts(&self) -> (usize, usize) {
        (self.tpl.heads.len(), self.tpl.entries.len() - 1)
    }

    #[inline(always)]
    fn tpl_slot(&self, j: usize, cap: usize, rem: usize) -> usize {
        (j * (self.m + 1) + cap) * (self.n * self.m + 1) + rem
    }

    /// The template of suffix start j under a row of length `cap` with `rem` cells left.
    #[inline(always)]
    pub(super) fn template_at(&self, j: usize, cap: usize, rem: usize) -> u32 {
        self.tpl.index[self.tpl_slot(j, cap, rem)]
    }

    /// Build a template for every (j, C, R) a diagram reaches with at most TEMPLATE_MAX
    /// completions while every row above it has more. The templates are independent, so
    /// they are built in parallel (serial, they were 6% of a two-thread 15 x 15 sweep).
    pub(super) fn build_templates(&self) -> Templates {
        let (n, m) = (self.n, self.m);
        let cells = n * m;
        // P(n - j, C, R): suffixes of rows j.. under C summing to R.
        let count = |j: usize, c: usize, r: usize| self.shorter(n - 1 - j, c + 1, r);
        let mut index = vec![NO_TEMPLATE; n * (m + 1) * (cells + 1)];
        let mut todo: Vec<(usize, usize, usize)> = Vec::new();
        let mut add = |index: &mut Vec<u32>, j: usize, c: usize, r: usize| {
            index[self.tpl_slot(j, c, r)] = todo.len() as u32;
            todo.push((j, c, r));
        };
        // open[(C, R)] for the current j: reachable with more than TEMPLATE_MAX completions
        // at every row so far.
        let mut open_c = vec![false; (m + 1) * (cells + 1)];
        for r in 0..=cells {
            if count(0, m, r) > TEMPLATE_MAX {
                open_c[m * (cells + 1) + r] = true;
            } else {
                add(&mut index, 0, m, r);
            }
        }
        for j in 0..n - 1 {
            let mut next = vec![false; (m + 1) * (cells + 1)];
            for c in 0..=m {
                for r in 0..=cells {
                    if !open_c[c * (cells + 1) + r] {
                        continue;
                    }
                    for v in 0..=c.min(r) {
                        let rest = r - v;
                        if rest > (n - 1 - j) * v {
                            continue;
                        }
                        if count(j + 1, v, rest) > TEMPLATE_MAX {
                            next[v * (cells + 1) + rest] = true;
                        } else if index[self.tpl_slot(j + 1, v, rest)] == NO_TEMPLATE {
                            add(&mut index, j + 1, v, rest);
                        }
                    }
                }
            }
            open_c = next;
        }
        debug_assert!(open_c.iter().all(|&o| !o));
        let parts: Vec<Template> = todo
            .par_iter()
            .map(|&(j, c, r)| self.template(j, c, r))
            .collect();
        let total = |f: fn(&Template) -> usize| parts.iter().map(f).sum::<usize>();
        let mut tpl = Templates {
            index,
            heads: Vec::with_capacity(parts.len()),
            entries: Vec::with_capacity(total(|p| p.entries.len()) + 1),
            kids: Vec::with_capacity(total(|p| p.kids.len())),
            chains: Vec::with_capacity(total(|p| p.chains.len())),
            chain_rewards: [
                Vec::with_capacity(total(|p| p.chain_rewards[0].len())),
                Vec::with_capacity(total(|p| p.chain_rewards[1].len())),
            ],
            rows: Vec::with_capacity(total(|p| p.rows.len())),
        };
        for part in parts {
            // Local entry numbers become global ones; a delta carries its entry number.
            let first = tpl.entries.len() as u32;
            let (kids, rows) = (tpl.kids.len() as u32, tpl.rows.len() as u32);
            tpl.entries.extend(part.entries.iter().map(|e| Entry {
                kids: e.kids + kids,
                rows: e.rows + rows,
            }));
            tpl.kids.extend(part.kids.iter().map(|k| SuffixMove {
                delta: k.delta.wrapping_add(u64::from(first)),
                at: k.at + first,
                ..*k
            }));
            let (chains, rewards) = (tpl.chains.len() as u32, tpl.chain_rewards[0].len() as u32);
            tpl.chains.extend(part.chains.iter().map(|c| SuffixChain {
                delta: c.delta.wrapping_add(u64::from(first)),
                at: c.at + first,
                rewards: c.rewards + rewards,
                ..*c
            }));
            for (pool, own) in tpl.chain_rewards.iter_mut().zip(&part.chain_rewards) {
                pool.extend_from_slice(own);
            }
            tpl.rows.extend_from_slice(&part.rows);
            tpl.heads.push(Head {
                first,
                len: part.entries.len() as u32,
                chains: (chains, tpl.chains.len() as u32),
            });
        }
        tpl.entries.push(Entry {
            kids: tpl.kids.len() as u32,
            rows: tpl.rows.len() as u32,
        });
        tpl
    }

    /// The template of suffix start j under a row of length `cap` with `rem` cells left,
    /// numbered from entry 0.
    fn template(&self, j: usize, cap: usize, rem: usize) -> Template {
        let n = self.n;
        let mut tpl = Template::default();
        let mut moves: Vec<SuffixMove> = Vec::new();
        let mut suffix = vec![0u32; n - j];
        self.each_suffix(&mut suffix, 0, cap, rem, &mut |rows: &[u32]| {
            let at = tpl.entries.len() as u32;
            tpl.entries.push(Entry {
                kids: 0,
                rows: tpl.rows.len() as u32,
            });
            tpl.rows.extend(rows.iter().map(|&r| r as u8));
            tpl.rows.resize(tpl.rows.len().next_multiple_of(ROW_PAD), 0);
            let (mut acc, mut left, mut above) = (0u64, rem, cap as u32);
            for (d, &r) in rows.iter().enumerate() {
                let l = j + d;
                let (step, _) = self.slot(l, r, left, 0);
                if r < above {
                    let cell = l * self.m + r as usize;
                    moves.push(SuffixMove {
                        delta: acc.wrapping_add(step.child).wrapping_add(u64::from(at)),
                        reward: [self.board.a[cell], -self.board.b[cell]],
                        at,
                    });
                }
                acc = acc.wrapping_add(step.carry);
                left -= r as usize;
                above = r;
            }
        });
        let len = tpl.entries.len();
        debug_assert_eq!(len as u64, self.shorter(n - 1 - j, cap + 1, rem));
        // Moves with the same child offset (delta - at) on consecutive suffixes chain up.
        // Two moves of one suffix never share an offset: their children differ.
        let offset = |kid: &SuffixMove| kid.delta.wrapping_sub(u64::from(kid.at));
        moves.sort_unstable_by_key(|kid| (offset(kid), kid.at));
        let mut kids = Vec::new();
        for run in moves.chunk_by(|a, b| offset(a) == offset(b) && b.at == a.at + 1) {
            if run.len() >= CHAIN_MIN {
                tpl.chains.push(SuffixChain {
                    delta: run[0].delta,
                    at: run[0].at,
                    len: run.len() as u32,
                    rewards: tpl.chain_rewards[0].len() as u32,
                });
                for (player, pool) in tpl.chain_rewards.iter_mut().enumerate() {
                    pool.extend(run.iter().map(|kid| kid.reward[player]));
                }
            } else {
                kids.extend_from_slice(run);
            }
        }
        // The rest move by move, sorted by entry so each entry's kids are adjacent.
        kids.sort_unstable_by_key(|kid| kid.at);
        let mut kids = kids.into_iter().peekable();
        for at in 0..len as u32 {
            tpl.entries[at as usize].kids = tpl.kids.len() as u32;
            while let Some(kid) = kids.next_if(|kid| kid.at == at) {
                tpl.kids.push(kid);
            }
        }
        tpl
    }

    /// Call `f` on every non-increasing fill of `out[d..]` with entries <= cap summing to
    /// `rem`, in lex order.
    fn each_suffix(
        &self,
        out: &mut [u32],
        d: usize,
        cap: usize,
        rem: usize,
        f: &mut impl FnMut(&[u32]),
    ) {
        if d == out.len() {
            if rem == 0 {
                f(out);
            }
            return;
        }
        let below = out.len() - 1 - d;
        for v in 0..=cap.min(rem) {
            if rem - v > below * v {
                continue;
            }
            out[d] = v as u32;
            self.each_suffix(out, d + 1, v, rem - v, f);
        }
    }
}

/// Suffix templates. The diagrams that share rows 0..j-1 form a contiguous run of ranks;
/// their suffixes (rows j..n-1) are the non-increasing sequences with entries <= C (the row
/// above, m for j = 0) summing to R (rem_j), in lex order. For every (j, C, R) that a
/// position can reach with at most `TEMPLATE_MAX` completions (and more than that for
/// every row above), the template lists those suffixes with their row lengths and their
/// movable rows' child ranks relative to rank + acc_j, so stepping inside the run is a
/// counter increment.
///
/// Consecutive suffixes often have a move each whose children are consecutive too: the
/// same row's move when they share the rows above it, and often a move of another row
/// (young 15 x 15: four in five suffix moves lie in such runs of three or more). A chain
/// stores such a run once, with its moves' rewards side by side; the rest are `kids`.
#[derive(Default)]
pub(super) struct Templates {
    /// Template id per (j, C, R) at `(j * (m + 1) + C) * (cells + 1) + R`, or NO_TEMPLATE.
    pub(super) index: Vec<u32>,
    pub(super) heads: Vec<Head>,
    /// Per suffix (plus a sentinel): where its kids and row lengths start.
    pub(super) entries: Vec<Entry>,
    pub(super) kids: Vec<SuffixMove>,
    pub(super) chains: Vec<SuffixChain>,
    /// The rewards of the chains' moves, per player: [0] = +a, [1] = -b.
    pub(super) chain_rewards: [Vec<i64>; 2],
    /// Row lengths of each suffix: n - j values.
    pub(super) rows: Vec<u8>,
}

impl Templates {
    /// Bytes the templates hold.
    pub(super) fn bytes(&self) -> u64 {
        fn of<T>(v: &Vec<T>) -> usize {
            v.capacity() * size_of::<T>()
        }
        let rewards: usize = self.chain_rewards.iter().map(of).sum();
        (of(&self.index)
            + of(&self.heads)
            + of(&self.entries)
            + of(&self.kids)
            + of(&self.chains)
            + rewards
            + of(&self.rows)) as u64
    }
}

/// One template while the templates are built: entries, kids and chains numbered from
/// its first entry, row lengths and chain rewards from its own start.
#[derive(Default)]
pub(super) struct Template {
    pub(super) entries: Vec<Entry>,
    pub(super) kids: Vec<SuffixMove>,
    pub(super) chains: Vec<SuffixChain>,
    pub(super) chain_rewards: [Vec<i64>; 2],
    pub(super) rows: Vec<u8>,
}

/// A template: its first entry, its number of entries, and its chains
/// (`chains[chains.0..chains.1]`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    pub(super) first: u32,
    pub(super) len: u32,
    pub(super) chains: (u32, u32),
}

/// One move each of the `len` suffixes from global entry `at` on, with consecutive
/// children: the child of entry `at + t` is (rank - entry + acc_j) + delta + t, as for a
/// `SuffixMove` of entry `at`, and its reward is `chain_rewards[player][rewards + t]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct SuffixChain {
    pub(super) delta: u64,
    pub(super) at: u32,
    pub(super) len: u32,
    pub(super) rewards: u32,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) kids: u32,
    pub(super) rows: u32,
}

/// A suffix row that can take a stone, for the suffix of global entry index `at`: the
/// child's rank minus (rank - at + acc_j), so that one base serves a whole run of suffixes,
/// and the rewards ([0] = +a for the first player, [1] = -b for the second).
#[derive(Debug, Clone, Copy)]
pub(super) struct SuffixMove {
    pub(super) delta: u64,
    pub(super) reward: [i64; 2],
    pub(super) at: u32,
}
