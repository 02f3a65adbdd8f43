//! The server over real HTTP on 127.0.0.1: every endpoint it serves, authentication failures,
//! tenant isolation and error envelopes. `CANVASC_SERVER_DB` picks the database: `sqlite`
//! (default), `postgres` (127.0.0.1:5432, user postgres) or `mysql` (127.0.0.1:3306, root);
//! a fresh database is made for each run, and an unreachable one fails the run.

mod accounts;
mod agents;
mod envelopes;
mod files;
mod harness;
mod isolation;
mod sessions;
