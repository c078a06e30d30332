//! The collectives of a distributed sweep, called from the main thread only (funneled).

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::*;
use mpi::{Count, topology::SimpleCommunicator};

use super::plan::Span;
use super::split;
use crate::error::{Error, Result};

/// Elements one rank may send or receive in one all-to-all-v call: counts and
/// displacements are C ints. Tests lower it (`RETRO_MPI_MAX_MESSAGE`) to run the rounds.
pub const MAX_MESSAGE: u64 = i32::MAX as u64;

/// What one exchange moved to and from other ranks (not to itself).
#[derive(Debug, Default, Clone, Copy)]
pub struct Traffic {
    pub sent: u64,
    pub received: u64,
}

/// All-to-all-v of `send` (`counts[d]` elements for rank d, back to back): returns what
/// every rank sent this one, in rank order. Counts travel as u64; the data goes in as many
/// rounds as it takes to keep every call's counts and displacements under `max_message`.
pub fn all_to_all_v<T: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    send: &[T],
    counts: &[u64],
    max_message: u64,
) -> Vec<T> {
    let size = counts.len();
    let mut recv_counts = vec![0u64; size];
    world.all_to_all_into(counts, &mut recv_counts[..]);
    let total: u64 = recv_counts.iter().sum();
    // Never an empty buffer: an empty Vec of bytes points at address 1, which Open MPI
    // takes for MPI_IN_PLACE (MPI_ERR_ARG).
    let pad = [T::default()];
    let send = if send.is_empty() { &pad[..] } else { send };
    let mut recv = vec![T::default(); (total as usize).max(1)];
    let offsets = |c: &[u64]| -> Vec<u64> {
        c.iter()
            .scan(0, |acc, &x| {
                let at = *acc;
                *acc += x;
                Some(at)
            })
            .collect()
    };
    let (send_at, recv_at) = (offsets(counts), offsets(&recv_counts));
    let fits = (send.len() as u64) < max_message && total < max_message;
    let mut one_round = [fits as i32];
    let mut all = [0i32];
    world.all_reduce_into(&one_round[..], &mut all[..], SystemOperation::min());
    one_round[0] = all[0];
    let to_count = |v: &[u64]| -> Vec<Count> { v.iter().map(|&x| x as Count).collect() };
    if one_round[0] == 1 {
        let partition = Partition::new(send, to_count(counts), to_count(&send_at));
        let mut into = PartitionMut::new(&mut recv[..], to_count(&recv_counts), to_count(&recv_at));
        world.all_to_all_varcount_into(&partition, &mut into);
        recv.truncate(total as usize);
        return recv;
    }
    // Rounds: each pair moves at most `cap` elements per round, through staging buffers.
    let cap = (max_message / size as u64).max(1);
    let local_rounds = counts
        .iter()
        .chain(&recv_counts)
        .map(|&c| c.div_ceil(cap))
        .max()
        .unwrap_or(0);
    let mut rounds = 0u64;
    world.all_reduce_into(&local_rounds, &mut rounds, SystemOperation::max());
    for round in 0..rounds {
        let take = |c: u64| c.saturating_sub(round * cap).min(cap);
        let sc: Vec<u64> = counts.iter().map(|&c| take(c)).collect();
        let rc: Vec<u64> = recv_counts.iter().map(|&c| take(c)).collect();
        let mut staged = Vec::with_capacity(sc.iter().sum::<u64>() as usize + 1);
        for d in (0..size).filter(|&d| sc[d] > 0) {
            let from = (send_at[d] + round * cap) as usize;
            staged.extend_from_slice(&send[from..][..sc[d] as usize]);
        }
        staged.push(T::default());
        let mut landed = vec![T::default(); rc.iter().sum::<u64>() as usize + 1];
        {
            let partition = Partition::new(&staged[..], to_count(&sc), to_count(&offsets(&sc)));
            let mut into =
                PartitionMut::new(&mut landed[..], to_count(&rc), to_count(&offsets(&rc)));
            world.all_to_all_varcount_into(&partition, &mut into);
        }
        let mut at = 0;
        for s in (0..size).filter(|&s| rc[s] > 0) {
            let to = (recv_at[s] + round * cap) as usize;
            recv[to..][..rc[s] as usize].copy_from_slice(&landed[at..][..rc[s] as usize]);
            at += rc[s] as usize;
        }
    }
    recv.truncate(total as usize);
    recv
}

/// Fetch the values of `spans` (sorted, disjoint child intervals of layer k + 1, which has
/// `next_size` positions) from the ranks owning them, back to back in order; `mine` is
/// this rank's slice of layer k + 1. Also what moved, and the bytes of values this rank
/// served. Every rank calls this once per layer.
pub fn fetch<V: Equivalence + Copy + Default>(
    world: &SimpleCommunicator,
    spans: &[Span],
    next_size: u64,
    mine: &[V],
    max_message: u64,
) -> Result<(Vec<V>, Traffic, u64)> {
    let (size, rank) = (world.size() as usize, world.rank() as usize);
    let own = split::slice(next_size, size, rank);
    // Spans are sorted and owners increase with rank, so pieces come out grouped by owner.
    let mut pieces = Vec::new();
    for &(s, e) in spans {
        split::pieces(next_size, size, s, e, &mut pieces);
    }
    let mut counts = vec![0u64; size];
    let mut requests = Vec::with_capacity(pieces.len() * 2);
    for &(p, s, e) in &pieces {
        counts[p] += 2;
        requests.extend_from_slice(&[s, e - s]);
    }
    drop(pieces);
    let asked = all_to_all_v(world, &requests, &counts, max_message);
    let mut traffic = Traffic::default();
    traffic.sent += 16 * (requests.len() as u64 - counts[rank]) / 2;
    // Answer every request from this rank's slice, in the order it came.
    let mut answer_counts = vec![0u64; size];
    let mut recv_counts = vec![0u64; size];
    world.all_to_all_into(&counts[..], &mut recv_counts[..]);
    let mut answers: Vec<V> = Vec::new();
    let mut at = 0usize;
    for (s, &c) in recv_counts.iter().enumerate() {
        for pair in asked[at..at + c as usize].chunks_exact(2) {
            let (start, len) = (pair[0], pair[1]);
            if start < own.start || start + len > own.end {
                return Err(Error::other(format!(
                    "rank {rank}: rank {s} asked for positions {start}..{} of a layer slice {}..{}",
                    start + len,
                    own.start,
                    own.end
                )));
            }
            answers.extend_from_slice(&mine[(start - own.start) as usize..][..len as usize]);
            answer_counts[s] += len;
        }
        at += c as usize;
        if s != rank {
            traffic.received += 8 * c;
        }
    }
    drop(asked);
    let answer_bytes = answers.len() as u64;
    let mut want: Vec<u64> = vec![0; size];
    let mut i = 0;
    for (d, &c) in counts.iter().enumerate() {
        for pair in requests[i..i + c as usize].chunks_exact(2) {
            want[d] += pair[1];
        }
        i += c as usize;
    }
    let values = all_to_all_v(world, &answers, &answer_counts, max_message);
    let width = std::mem::size_of::<V>() as u64;
    let others = |v: &[u64]| {
        v.iter()
            .enumerate()
            .filter(|&(p, _)| p != rank)
            .map(|(_, &c)| c)
            .sum::<u64>()
    };
    traffic.sent += others(&answer_counts) * width;
    traffic.received += others(&want) * width;
    drop(answers);
    Ok((values, traffic, answer_bytes * width))
}
