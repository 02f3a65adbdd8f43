//! The server over real HTTP on 127.0.0.1: every endpoint it serves, authentication failures,
//! tenant isolation, error envelopes, and agents run by the host's engine (scripted model,
//! one program compiled in by `canvas!`). `CANVASC_SERVER_DB` picks the database: `sqlite`
//! (default), `postgres` (127.0.0.1:5432, user postgres) or `mysql` (127.0.0.1:3306, root);
//! a fresh database is made for each run, and an unreachable one fails the run.

mod access;
mod accounts;
mod agents;
mod attachments;
mod background;
mod bombs;
mod builds;
mod completions;
mod deployment;
mod editor;
mod endpoints;
mod engine;
mod envelopes;
#[path = "../../../tests/src/fault_rounds.rs"]
mod fault_rounds;
mod files;
mod harness;
mod integrity;
mod isolation;
mod midstream;
mod models;
mod multitask;
mod quotas;
mod reattach;
mod run_control;
mod sessions;
mod storage;
mod webhooks;
