//! What the driver lends its workers: how a layer's positions are computed (`Driver`), and
//! the finished layers a layer reads (`Finished`), held in memory or mapped from the table
//! file (`Held`). A leaf of the solver: the driver (`solve/mod.rs`) and the workers
//! (`sweep.rs`, `pass.rs`, `fixpoint.rs`) import it, it imports none of them.

use super::children::Fetched;
use crate::stored::{Value, ValueType};
use crate::table::mapped::GuardedMap;

/// How the positions of a layer are computed: on one thread or on rayon's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// One thread, chunk after chunk.
    Serial,
    /// rayon, in the current thread pool.
    Parallel,
}

/// A finished layer as a solve reads it: its values, or the one-byte halved codes a table of
/// `ValueType::Halved` stores (mapped from the table file, decoded as they are read).
#[derive(Clone, Copy)]
pub(crate) enum Layer<'a, V> {
    /// The values themselves.
    Values(&'a [V]),
    /// Halved codes of the values (`ValueType::value_of`).
    Halved(&'a [i8]),
    /// A rank's own slice and the values it fetched from the other ranks' slices.
    Fetched(&'a Fetched<'a, V>),
}

/// The finished layers a layer reads, by layer number (empty where not held).
pub(crate) struct Finished<'a, V> {
    layers: Vec<Layer<'a, V>>,
}

impl<'a, V: Value> Finished<'a, V> {
    /// The layers held, as `(layer, values)`.
    pub fn new(last_layer: usize, held: impl IntoIterator<Item = (usize, &'a [V])>) -> Self {
        Self::of(
            last_layer,
            held.into_iter().map(|(k, v)| (k, Layer::Values(v))),
        )
    }

    /// The layers held, as `(layer, values or codes)`.
    pub fn of(last_layer: usize, held: impl IntoIterator<Item = (usize, Layer<'a, V>)>) -> Self {
        let mut layers: Vec<Layer<'a, V>> = vec![Layer::Values(&[]); last_layer + 1];
        for (k, layer) in held {
            layers[k] = layer;
        }
        Finished { layers }
    }

    /// Layer `k`'s values (empty where not held, or held as codes: only the games of the
    /// retrograde workers, which read values one at a time with `get`, store codes).
    #[inline]
    pub fn layer(&self, k: usize) -> &'a [V] {
        match self.layers.get(k) {
            Some(Layer::Values(v)) => v,
            _ => &[],
        }
    }

    /// Layer `k` as fetched by a rank of several, if it is.
    #[inline]
    pub fn fetched(&self, k: usize) -> Option<&'a Fetched<'a, V>> {
        match self.layers.get(k) {
            Some(Layer::Fetched(f)) => Some(f),
            _ => None,
        }
    }

    /// Ask for the value of position `rank` of layer `k` ahead of its use.
    #[inline]
    pub fn prefetch(&self, k: usize, rank: u64) {
        match self.layers.get(k) {
            Some(Layer::Values(v)) => {
                if let Some(v) = v.get(rank as usize) {
                    crate::memory::prefetch(v);
                }
            }
            Some(Layer::Halved(c)) => {
                if let Some(c) = c.get(rank as usize) {
                    crate::memory::prefetch(c);
                }
            }
            Some(Layer::Fetched(f)) => {
                if let Some(v) = f.get(rank) {
                    crate::memory::prefetch(v);
                }
            }
            None => {}
        }
    }

    /// The value of position `rank` of layer `k`, None where it is not held.
    #[inline]
    pub fn get(&self, k: usize, rank: u64) -> Option<V> {
        match self.layers.get(k)? {
            Layer::Values(v) => v.get(rank as usize).copied(),
            Layer::Halved(c) => {
                let code = *c.get(rank as usize)?;
                Some(V::from_i64(ValueType::Halved.value_of(code.into())))
            }
            Layer::Fetched(f) => f.get(rank).copied(),
        }
    }
}

/// Maps a finished layer back from where `OnLayer` wrote it (the table file), where its
/// values are stored as `stored`: the raw little-endian values the solve computes in, or
/// halved codes.
pub(crate) struct MapLayer<'a> {
    /// The type the file stores values in.
    pub stored: ValueType,
    /// The layer's bytes in the file, None where it is not there (not yet written).
    pub map: &'a (dyn Fn(usize) -> Option<GuardedMap> + Sync),
}

/// A finished layer the driver holds: in memory, or mapped from the table file (values, or
/// halved codes), or only written there, to be mapped when a layer reads it: a map keeps
/// every page read through it resident (and counted as the process's memory) until it is
/// dropped, so a layer is mapped only while the layer being solved reads it.
pub(crate) enum Held<V> {
    Memory(Vec<V>),
    /// In memory, shared with a writer that keeps the values past the call that handed
    /// them on (`Solved::keep`).
    Shared(std::sync::Arc<Vec<V>>),
    Mapped(GuardedMap, usize),
    MappedHalved(GuardedMap, usize),
    Written,
}

impl<V: Value> Held<V> {
    /// A map of `n` values stored as `stored`: values of V, if its bytes are exactly that
    /// and aligned for V, and V is a primitive integer on a little-endian machine (so the
    /// bytes are the values); or `n` halved codes, a byte each.
    pub(crate) fn mapped(map: GuardedMap, n: usize, stored: ValueType) -> Option<Held<V>> {
        use std::any::TypeId;
        if stored == ValueType::Halved {
            return (map.bytes().len() == n).then_some(Held::MappedHalved(map, n));
        }
        let int = [
            TypeId::of::<i8>(),
            TypeId::of::<i16>(),
            TypeId::of::<i32>(),
            TypeId::of::<i64>(),
        ]
        .contains(&TypeId::of::<V>());
        let fits = stored == V::TYPE
            && map.bytes().len() == n * size_of::<V>()
            && (map.bytes().as_ptr() as usize).is_multiple_of(align_of::<V>());
        (int && fits && cfg!(target_endian = "little")).then_some(Held::Mapped(map, n))
    }

    /// The values, where they are in memory.
    pub(crate) fn in_memory(&self) -> Option<&[V]> {
        match self {
            Held::Memory(v) => Some(v),
            Held::Shared(v) => Some(v),
            _ => None,
        }
    }

    /// Its buffer, to be reused, where nothing else holds it.
    pub(crate) fn into_buffer(self) -> Option<Vec<V>> {
        match self {
            Held::Memory(v) => Some(v),
            Held::Shared(v) => std::sync::Arc::try_unwrap(v).ok(),
            _ => None,
        }
    }

    /// Whether a read through its map met the file cut short.
    pub(crate) fn faulted(&self) -> bool {
        match self {
            Held::Mapped(map, _) | Held::MappedHalved(map, _) => map.faulted(),
            Held::Memory(_) | Held::Shared(_) | Held::Written => false,
        }
    }

    pub(crate) fn layer(&self) -> Layer<'_, V> {
        match self {
            Held::Memory(v) => Layer::Values(v),
            Held::Shared(v) => Layer::Values(v),
            // SAFETY: `mapped` admitted the map only as `n` aligned values of a primitive
            // integer type in the machine's byte order, for which every bit pattern is a
            // value; the slice borrows the map, which stays mapped while it lives. The
            // table file is the build's own, locked partial file, which nothing of retro's
            // writes while its finished layers are read; a program that cuts it short
            // leaves zeros here (the SIGBUS guard), which `faulted` reports after the layer.
            Held::Mapped(map, n) => Layer::Values(unsafe {
                std::slice::from_raw_parts(map.bytes().as_ptr().cast::<V>(), *n)
            }),
            // SAFETY: as above, for `n` bytes read as `i8`s (every bit pattern is one).
            Held::MappedHalved(map, n) => Layer::Halved(unsafe {
                std::slice::from_raw_parts(map.bytes().as_ptr().cast::<i8>(), *n)
            }),
            Held::Written => Layer::Values(&[]),
        }
    }
}
