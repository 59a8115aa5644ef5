//! [`Padded`]: a value alone on its cache lines.
//!
//! A mutex that every consumer takes (a table's data, its fast-path lock state, the
//! transaction manager) moves between cores on each hold. Any other field on the same line
//! then moves with it, and a read of that field by another core waits for the line
//! ("false sharing"). Aligning to 128 bytes keeps each such value on lines of its own (two
//! 64-byte lines, as adjacent-line prefetchers pull pairs).

use std::ops::{Deref, DerefMut};

/// `T` aligned to, and padded to a multiple of, 128 bytes.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Padded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
