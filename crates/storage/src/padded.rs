//! [`Padded`]: a value alone on its cache lines.
//!
//! A mutex that every consumer takes (a table's data, the transaction manager) moves between
//! cores on each hold: any other field on the same line moves with it, and a read of that
//! field by another core waits for the line ("false sharing"). A value every row change reads
//! (a table's count of strong lock requests, `fastlock`) must likewise keep off lines that
//! others write. Aligning to 128 bytes keeps each such value on lines of its own (two
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
