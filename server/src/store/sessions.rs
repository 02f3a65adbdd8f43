//! Agent sessions. Everything a turn changes (transcript, references, the session's run state,
//! counters) is one JSON document in `state`, so saving a turn is one `UPDATE`: a crash leaves
//! the previous turn or the next one, never half of one. The run state is stored apart from
//! the canvas the session runs (`session_state.rs`).

use serde_json::Value;
use sqlx::any::AnyRow;

use super::canvases::StartingCanvas;
use super::group::job;
use super::session_state::{self, CANVAS_KEY};
use super::{int, opt_text, text, Store, StoreError};

/// A new session's row.
#[derive(Clone, Debug)]
pub struct NewSession {
    pub id: String,
    pub agent_id: String,
    pub tenant_id: String,
    pub user_id: String,
    pub name: String,
    pub source: String,
    pub version_title: Option<String>,
    /// The state without a run state: the session starts from `canvas`'s.
    pub state: Value,
    pub canvas: StartingCanvas,
    pub create_time: i64,
}

impl NewSession {
    /// The state a turn works with: `state` naming the canvas.
    pub fn working_state(&self) -> Value {
        let mut state = self.state.clone();
        if let Value::Object(object) = &mut state {
            object.insert(CANVAS_KEY.into(), Value::String(self.canvas.id.clone()));
        }
        state
    }
}

/// A stored session.
#[derive(Clone, Debug)]
pub struct SessionRecord {
    pub id: String,
    pub agent_id: String,
    pub user_id: String,
    pub name: String,
    pub source: String,
    pub version_title: Option<String>,
    pub state: Value,
    pub create_time: i64,
    pub update_time: i64,
}

/// Which sessions of one agent a list shows, and in which order.
#[derive(Clone, Debug, Default)]
pub struct SessionFilter {
    pub id: Option<String>,
    pub user_id: Option<String>,
    /// Lower-cased; matched as a substring of id, name or the stored state.
    pub keywords: Option<String>,
    /// Inclusive bounds in milliseconds on the ordering column.
    pub from_time: Option<i64>,
    pub to_time: Option<i64>,
    pub order_by_create: bool,
    pub descending: bool,
    /// `(limit, offset)`; `None` lists every match.
    pub page: Option<(i64, i64)>,
}

const COLUMNS: &str =
    "id, agent_id, user_id, name, source, version_title, state, canvas_id, create_time, update_time";

impl Store {
    /// A session row in the form turns work with.
    async fn session_record(&self, row: &AnyRow) -> Result<SessionRecord, StoreError> {
        let id = text(row, "id")?;
        let mut state: Value = serde_json::from_str(&text(row, "state")?).unwrap_or(Value::Null);
        if let Some(canvas_id) = opt_text(row, "canvas_id")? {
            let base = match session_state::is_patch(&state) {
                true => Some(self.canvas(&canvas_id).await?),
                false => None,
            };
            session_state::working(&id, &mut state, &canvas_id, base.as_deref())?;
        }
        Ok(SessionRecord {
            id,
            agent_id: text(row, "agent_id")?,
            user_id: text(row, "user_id")?,
            name: text(row, "name")?,
            source: text(row, "source")?,
            version_title: opt_text(row, "version_title")?,
            state,
            create_time: int(row, "create_time")?,
            update_time: int(row, "update_time")?,
        })
    }

    /// The document `state` (working form) is stored as.
    pub(super) async fn stored_state(&self, state: &Value) -> Result<String, StoreError> {
        let base = match session_state::canvas_of(state) {
            Some(id) if session_state::stored_as_patch(state) => Some(self.canvas(id).await?),
            _ => None,
        };
        Ok(session_state::stored(state, base.as_deref()))
    }
}

/// `text` with LIKE's wildcards escaped by `!` (an escape character all three databases accept
/// in `ESCAPE '!'`).
fn like_pattern(text: &str) -> String {
    let mut out = String::from("%");
    for ch in text.chars() {
        if matches!(ch, '%' | '_' | '!') {
            out.push('!');
        }
        out.push(ch);
    }
    out.push('%');
    out
}

impl Store {
    /// Stores a new session and its canvas (unless stored already); `fence` is the lease token
    /// of the run that starts with it (empty when none does), as [`Store::fence_session`]
    /// would set it.
    pub async fn insert_session(
        &self,
        session: &NewSession,
        fence: &str,
    ) -> Result<(), StoreError> {
        let store = self.clone();
        // Owned for the writer; the state is written as text once, never copied as a tree.
        let state = session_state::stored(&session.state, None);
        let (session, fence) = (session.clone(), fence.to_string());
        self.write(job(move |conn| {
            Box::pin(async move {
                store
                    .put_canvas_in(conn, &session.canvas, session.create_time)
                    .await?;
                let q = store.sql(
                    "INSERT INTO agent_sessions (id, agent_id, tenant_id, user_id, name, source, \
                     version_title, state, canvas_id, create_time, update_time, lease_token) \
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                );
                sqlx::query(&q)
                    .bind(&session.id)
                    .bind(&session.agent_id)
                    .bind(&session.tenant_id)
                    .bind(&session.user_id)
                    .bind(&session.name)
                    .bind(&session.source)
                    .bind(&session.version_title)
                    .bind(state)
                    .bind(&session.canvas.id)
                    .bind(session.create_time)
                    .bind(session.create_time)
                    .bind(fence)
                    .execute(conn)
                    .await?;
                Ok(())
            })
        }))
        .await
    }

    /// Replaces a session's state after a turn, in one statement.
    pub async fn save_session_state(
        &self,
        id: &str,
        state: &Value,
        now: i64,
    ) -> Result<(), StoreError> {
        let q = self.sql("UPDATE agent_sessions SET state = ?, update_time = ? WHERE id = ?");
        sqlx::query(&q)
            .bind(self.stored_state(state).await?)
            .bind(now)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn session(
        &self,
        agent_id: &str,
        id: &str,
    ) -> Result<Option<SessionRecord>, StoreError> {
        let q = format!("SELECT {COLUMNS} FROM agent_sessions WHERE agent_id = ? AND id = ?");
        let q = self.sql(&q);
        let row = sqlx::query(&q)
            .bind(agent_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(row) => Ok(Some(self.session_record(&row).await?)),
            None => Ok(None),
        }
    }

    /// One page of `agent_id`'s sessions matching `filter`, and how many match in all.
    pub async fn sessions(
        &self,
        agent_id: &str,
        filter: &SessionFilter,
    ) -> Result<(Vec<SessionRecord>, i64), StoreError> {
        let time_column = if filter.order_by_create {
            "create_time"
        } else {
            "update_time"
        };
        let mut clauses = vec!["agent_id = ?".to_string()];
        let mut args: Vec<Arg> = vec![Arg::Text(agent_id.to_string())];
        if let Some(id) = &filter.id {
            clauses.push("id = ?".into());
            args.push(Arg::Text(id.clone()));
        }
        if let Some(user_id) = &filter.user_id {
            clauses.push("user_id = ?".into());
            args.push(Arg::Text(user_id.clone()));
        }
        if let Some(keywords) = &filter.keywords {
            clauses.push(
                "(LOWER(id) LIKE ? ESCAPE '!' OR LOWER(name) LIKE ? ESCAPE '!' \
                 OR LOWER(state) LIKE ? ESCAPE '!')"
                    .into(),
            );
            let pattern = like_pattern(keywords);
            args.extend((0..3).map(|_| Arg::Text(pattern.clone())));
        }
        if let Some(from) = filter.from_time {
            clauses.push(format!("{time_column} >= ?"));
            args.push(Arg::Int(from));
        }
        if let Some(to) = filter.to_time {
            clauses.push(format!("{time_column} <= ?"));
            args.push(Arg::Int(to));
        }
        let condition = clauses.join(" AND ");

        let count_sql = format!("SELECT COUNT(*) AS n FROM agent_sessions WHERE {condition}");
        let count_sql = self.sql(&count_sql);
        let mut count = sqlx::query(&count_sql);
        for arg in &args {
            count = arg.bind(count);
        }
        let total = int(&count.fetch_one(&self.pool).await?, "n")?;

        let direction = if filter.descending { "DESC" } else { "ASC" };
        let mut list_sql = format!(
            "SELECT {COLUMNS} FROM agent_sessions WHERE {condition} \
             ORDER BY {time_column} {direction}, id {direction}"
        );
        let mut list_args = args;
        if let Some((limit, offset)) = filter.page {
            list_sql.push_str(" LIMIT ? OFFSET ?");
            list_args.push(Arg::Int(limit));
            list_args.push(Arg::Int(offset));
        }
        let list_sql = self.sql(&list_sql);
        let mut list = sqlx::query(&list_sql);
        for arg in &list_args {
            list = arg.bind(list);
        }
        let rows = list.fetch_all(&self.pool).await?;
        let mut sessions = Vec::with_capacity(rows.len());
        for row in &rows {
            sessions.push(self.session_record(row).await?);
        }
        Ok((sessions, total))
    }

    /// Deletes one session of `agent_id` with the uploads that belong to it; `false` when
    /// there was none.
    pub async fn delete_session(&self, agent_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        let q = self.sql("DELETE FROM agent_sessions WHERE agent_id = ? AND id = ?");
        let result = sqlx::query(&q)
            .bind(agent_id)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let deleted = result.rows_affected() > 0;
        if deleted {
            let q = self.sql("DELETE FROM uploaded_files WHERE session_id = ?");
            sqlx::query(&q).bind(id).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(deleted)
    }

    /// Deletes every session of `agent_id` with the uploads that belong to them; how many
    /// sessions there were.
    pub async fn delete_all_sessions(&self, agent_id: &str) -> Result<u64, StoreError> {
        let mut tx = self.begin().await?;
        let q = self.sql(super::files::DELETE_FILES_OF_AGENT_SESSIONS);
        sqlx::query(&q).bind(agent_id).execute(&mut *tx).await?;
        let q = self.sql("DELETE FROM agent_sessions WHERE agent_id = ?");
        let result = sqlx::query(&q).bind(agent_id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(result.rows_affected())
    }
}

/// A value bound to a query assembled at run time.
enum Arg {
    Text(String),
    Int(i64),
}

type AnyQuery<'q> = sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>;

impl Arg {
    fn bind<'q>(&self, query: AnyQuery<'q>) -> AnyQuery<'q> {
        match self {
            Arg::Text(text) => query.bind(text.clone()),
            Arg::Int(n) => query.bind(*n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::like_pattern;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(like_pattern("a%b_c!"), "%a!%b!_c!!%");
    }
}
