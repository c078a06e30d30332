//! How a fixpoint level's tells travel between ranks: each destination's messages sorted,
//! then the parent's rank as a varint of its distance from the one before, and the tell in
//! one byte. A level's parents of one owner lie close together in its slice, so most take
//! two or three bytes on the wire where the message itself is eight. Needs no MPI: built
//! without it for `retro plan`'s count of bytes and for its tests.
#![cfg_attr(not(feature = "mpi"), allow(dead_code))]

/// Encode `messages` (a parent's local rank shifted up 8 bits over its tell, as the
/// fixpoint writes them) for one destination: their count, then each sorted message's
/// distance from the one before and its tell. `messages` is sorted in place.
///
/// The tells one parent gets at one level are merged first, as the parent would fold them:
/// a loss offers the same win however often it comes, so it goes once, and wins take their
/// weights from the parent's count one after another, so they go as one tell of their sum
/// (a sum past a byte, which no game's weights reach since a parent's count is a byte, is
/// cut into several). On the flying layers of Morris a level tells a parent many times
/// over.
pub fn encode(messages: &mut [u64], out: &mut Vec<u8>) {
    messages.sort_unstable();
    // Counted first, to lead the stream; then written.
    let mut count = 0u64;
    each_merged(messages, |_, _| count += 1);
    varint(count, out);
    let mut last = 0u64;
    each_merged(messages, |q, told| {
        varint(q - last, out);
        out.push(told);
        last = q;
    });
}

/// `f(parent, tell)` for each tell of sorted `messages` merged per parent (`encode`).
fn each_merged(messages: &[u64], mut f: impl FnMut(u64, u8)) {
    let mut i = 0;
    while i < messages.len() {
        let q = messages[i] >> 8;
        // A loss sorts first among a parent's tells.
        if messages[i] as u8 == LOSS {
            f(q, LOSS);
        }
        let mut sum = 0u32;
        while i < messages.len() && messages[i] >> 8 == q {
            sum += u32::from(messages[i] as u8);
            i += 1;
        }
        while sum > 0 {
            let w = sum.min(u8::MAX.into());
            f(q, w as u8);
            sum -= w;
        }
    }
}

/// What a parent is told of a child that lost (`fixpoint::Tell::LOSS`); any other tell is
/// a child's win with its weight.
const LOSS: u8 = 0;

/// Decode one stream after another (one per sender, each as `encode` wrote it) from
/// `bytes`, appending the messages to `out`; an error where the bytes end inside a stream
/// or a value overflows (a fault of the transport, never of the input).
pub fn decode(mut bytes: &[u8], streams: usize, out: &mut Vec<u64>) -> Result<(), &'static str> {
    for _ in 0..streams {
        let count = read_varint(&mut bytes)?;
        let mut last = 0u64;
        for _ in 0..count {
            let q = last
                .checked_add(read_varint(&mut bytes)?)
                .ok_or("a parent's rank overflows")?;
            let (&told, rest) = bytes.split_first().ok_or("the stream ends inside a tell")?;
            bytes = rest;
            out.push(q << 8 | told as u64);
            last = q;
        }
    }
    match bytes.is_empty() {
        true => Ok(()),
        false => Err("bytes left after the last stream"),
    }
}

/// LEB128: seven bits a byte, low first, the top bit set on all but the last.
fn varint(mut x: u64, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn read_varint(bytes: &mut &[u8]) -> Result<u64, &'static str> {
    let mut x = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes
            .split_first()
            .ok_or("the stream ends inside a number")?;
        *bytes = rest;
        x |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(x);
        }
    }
    Err("a number longer than 64 bits")
}

/// Bytes `encode` takes for `messages` tells spread over `span` parents: the distances
/// between sorted parents average `span / messages`, each a varint, plus the tell's byte
/// (what `retro plan` counts a tell sent to another rank).
pub fn bytes_per_tell(span: u64, messages: u64) -> f64 {
    let gap = span / messages.max(1);
    let mut len = 1u64;
    let mut g = gap >> 7;
    while g > 0 {
        len += 1;
        g >>= 7;
    }
    (len + 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_decode_to_the_sorted_messages_they_encode() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut bytes = Vec::new();
        let mut want = Vec::new();
        // Empty streams, repeated parents, the largest ranks, gaps of every length.
        for len in [0usize, 1, 2, 300, 0, 5000] {
            let mut stream: Vec<u64> = (0..len)
                .map(|i| match i % 4 {
                    0 => next() >> 8 << 8 | (next() & 0xff),
                    1 => (next() % 1000) << 8,
                    2 => u64::MAX,
                    _ => (next() % 1_000_000) << 8 | 3,
                })
                .collect();
            if len > 1 {
                stream[1] = stream[0];
            }
            want.extend(merged(&stream));
            encode(&mut stream, &mut bytes);
        }
        let mut got = Vec::new();
        decode(&bytes, 6, &mut got).expect("decodes");
        assert_eq!(got, want);
    }

    /// What a stream decodes to, worked out apart: per parent in order, a loss if any came,
    /// then the wins' weights summed, in tells of at most 255.
    fn merged(stream: &[u64]) -> Vec<u64> {
        let mut per: std::collections::BTreeMap<u64, (bool, u32)> = Default::default();
        for &m in stream {
            let e = per.entry(m >> 8).or_default();
            match m as u8 {
                0 => e.0 = true,
                w => e.1 += u32::from(w),
            }
        }
        let mut out = Vec::new();
        for (q, (loss, mut sum)) in per {
            if loss {
                out.push(q << 8);
            }
            while sum > 0 {
                let w = sum.min(255);
                out.push(q << 8 | u64::from(w));
                sum -= w;
            }
        }
        out
    }

    #[test]
    fn a_level_s_tells_to_one_parent_go_as_one_loss_and_one_sum_of_wins() {
        // Parent 7: two losses and wins of 1, 2 and 3; parent 9: wins of 200 and 100 (a sum
        // past a byte, cut in two); parent 8: one loss.
        let mut stream = vec![
            7 << 8 | 2,
            9 << 8 | 200,
            7 << 8,
            8 << 8,
            7 << 8 | 1,
            9 << 8 | 100,
            7 << 8,
            7 << 8 | 3,
        ];
        let mut bytes = Vec::new();
        encode(&mut stream, &mut bytes);
        let mut got = Vec::new();
        decode(&bytes, 1, &mut got).expect("decodes");
        assert_eq!(
            got,
            vec![7 << 8, 7 << 8 | 6, 8 << 8, 9 << 8 | 255, 9 << 8 | 45]
        );
    }

    #[test]
    fn close_parents_take_two_bytes_and_cut_streams_are_refused() {
        let mut stream: Vec<u64> = (0..1000u64).map(|q| (q * 3) << 8 | 1).collect();
        let mut bytes = Vec::new();
        encode(&mut stream, &mut bytes);
        // The count (2 bytes), then a one-byte gap and the tell's byte each.
        assert_eq!(bytes.len(), 2 + 2 * 1000);
        assert_eq!(bytes_per_tell(3000, 1000), 2.0);
        let mut out = Vec::new();
        assert!(decode(&bytes[..bytes.len() - 1], 1, &mut out).is_err());
        let mut out = Vec::new();
        assert!(decode(&bytes, 2, &mut out).is_err());
        let mut out = Vec::new();
        assert!(decode(&[0, 0], 1, &mut out).is_err());
    }
}
