//! Recursion that cannot overflow the stack.
//!
//! Every pass over a syntax tree or a bound expression recurses once per level: ours (binding,
//! evaluation) and sqlparser's derived ones (clone, drop, display, visitors), and a level can
//! take tens of kilobytes of stack in a debug build. The parser bounds how deep a tree can be
//! (`tdlite_parser::limits`, 3710 past `MAX_OPERATOR_DEPTH`), but not how much stack the
//! caller's thread has (a Rust test thread has 2 MiB, a Python thread may have less). Two
//! guards, both on the `stacker` crate (as rustc does):
//!
//! - [`for_bound`]: each public entry point of a session (`execute`, `prepare`,
//!   `execute_prepared`, `execute_batch`) runs on a fresh stack segment when what is left of
//!   the current one is less than the request could need ([`BASE`] plus [`PER_LEVEL`] per
//!   level of `tdlite_parser::limits::operator_bound` of its text). A short request never
//!   pays for it. A view's query is expanded the same way ([`for_text`]).
//! - [`deep`]: bind_expr and Expr::eval enter each level through it, so a tree the text did not
//!   show (a view's stored query, a macro's body) still continues on a new segment when the
//!   stack runs low.

/// Stack a request needs besides its tree's levels.
const BASE: usize = 256 * 1024;

/// Stack one level of a tree may take across every pass (measured: binding takes about 32 KiB
/// a level in a debug build).
const PER_LEVEL: usize = if cfg!(debug_assertions) { 64 } else { 16 } * 1024;

/// Stack that must remain before a recursive step runs on the current stack.
const RED_ZONE: usize = if cfg!(debug_assertions) { 256 } else { 64 } * 1024;

/// Size of each segment [`deep`] adds.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a new stack segment if the current one is nearly used up.
pub(crate) fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Runs `f`, which parses and runs `sql`, where it has the stack `sql` may need.
pub(crate) fn for_text<R>(sql: &str, f: impl FnOnce() -> R) -> R {
    for_bound(tdlite_parser::limits::operator_bound(sql), f)
}

/// Runs `f` (a whole request whose text has operator bound `levels`) where it has the stack it
/// may need: here if enough is left, else on a new segment of that size.
pub(crate) fn for_bound<R>(levels: usize, f: impl FnOnce() -> R) -> R {
    let need = BASE + levels * PER_LEVEL;
    match stacker::remaining_stack() {
        Some(left) if left >= need => f(),
        _ => stacker::grow(need, f),
    }
}
