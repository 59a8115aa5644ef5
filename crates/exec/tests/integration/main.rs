//! The engine's integration tests, in one binary (each test file is a module here, so the
//! suite links arrow and sqlparser once instead of once per file).
//!
//! The sqllogictest suites (`.slt` files and SQLite's corpus) are the other binary, `sql`: it
//! runs without libtest's harness.

mod common;

mod attempts;
mod bulk_insert;
mod claim_model;
mod cut_logs;
mod decorrelate_model;
mod deep_input;
mod delayed_state;
mod dictionary;
mod durability;
mod explain;
mod fuzz;
mod identity;
mod index_model;
mod insert_paths;
mod interrupt;
mod isolation;
mod join_model;
mod layers;
mod leases;
mod limits_model;
mod periods;
mod plan_cache_model;
mod power_cut;
mod prepared;
mod queue_model;
mod robustness;
mod selective_consume;
mod snapshots;
mod streaming;
mod stress_batch;
mod stress_locks;
mod stress_queue;
mod stress_scan;
mod stress_selective;
mod subscribers;
mod subscribers_model;
mod volatile;
