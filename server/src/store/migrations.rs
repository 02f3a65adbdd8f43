//! The schema migrations, embedded in the binary so a server needs no files beside it to start.

use std::borrow::Cow;

use futures::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

use super::{Backend, Store, StoreError};

/// `(version, description, SQL)` for each database, oldest first.
fn scripts(backend: Backend) -> [(i64, &'static str, &'static str); 7] {
    match backend {
        Backend::Sqlite => [
            (
                1,
                "initial",
                include_str!("../../migrations/sqlite/0001_initial.sql"),
            ),
            (
                2,
                "runs",
                include_str!("../../migrations/sqlite/0002_runs.sql"),
            ),
            (
                3,
                "access",
                include_str!("../../migrations/sqlite/0003_access.sql"),
            ),
            (
                4,
                "uploads",
                include_str!("../../migrations/sqlite/0004_uploads.sql"),
            ),
            (
                5,
                "default models",
                include_str!("../../migrations/sqlite/0005_default_models.sql"),
            ),
            (
                6,
                "canvases",
                include_str!("../../migrations/sqlite/0006_canvases.sql"),
            ),
            (
                7,
                "program builds",
                include_str!("../../migrations/sqlite/0007_program_builds.sql"),
            ),
        ],
        Backend::Postgres => [
            (
                1,
                "initial",
                include_str!("../../migrations/postgres/0001_initial.sql"),
            ),
            (
                2,
                "runs",
                include_str!("../../migrations/postgres/0002_runs.sql"),
            ),
            (
                3,
                "access",
                include_str!("../../migrations/postgres/0003_access.sql"),
            ),
            (
                4,
                "uploads",
                include_str!("../../migrations/postgres/0004_uploads.sql"),
            ),
            (
                5,
                "default models",
                include_str!("../../migrations/postgres/0005_default_models.sql"),
            ),
            (
                6,
                "canvases",
                include_str!("../../migrations/postgres/0006_canvases.sql"),
            ),
            (
                7,
                "program builds",
                include_str!("../../migrations/postgres/0007_program_builds.sql"),
            ),
        ],
        Backend::MySql => [
            (
                1,
                "initial",
                include_str!("../../migrations/mysql/0001_initial.sql"),
            ),
            (
                2,
                "runs",
                include_str!("../../migrations/mysql/0002_runs.sql"),
            ),
            (
                3,
                "access",
                include_str!("../../migrations/mysql/0003_access.sql"),
            ),
            (
                4,
                "uploads",
                include_str!("../../migrations/mysql/0004_uploads.sql"),
            ),
            (
                5,
                "default models",
                include_str!("../../migrations/mysql/0005_default_models.sql"),
            ),
            (
                6,
                "canvases",
                include_str!("../../migrations/mysql/0006_canvases.sql"),
            ),
            (
                7,
                "program builds",
                include_str!("../../migrations/mysql/0007_program_builds.sql"),
            ),
        ],
    }
}

/// The embedded scripts of one database, as sqlx's migrator reads them.
#[derive(Debug)]
struct Embedded(Backend);

impl<'s> MigrationSource<'s> for Embedded {
    fn resolve(self) -> BoxFuture<'s, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async move {
            Ok(scripts(self.0)
                .into_iter()
                .map(|(version, description, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(description),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

/// Brings the database up to this build's schema (sqlx records what it applied).
pub(super) async fn apply(store: &Store) -> Result<(), StoreError> {
    let migrator = Migrator::new(Embedded(store.backend)).await?;
    migrator.run(&store.pool).await?;
    Ok(())
}
