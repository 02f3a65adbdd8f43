//! Agent tags (`http-api.md` #31): `GET /agents/tags` counts the tags of the caller's agents,
//! `PUT /agents/{agent_id}/tags` sets an agent's, normalised as RAGFlow stores them (one
//! comma-separated column).

use axum::extract::{Path, State};
use canvasc_value::py;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

use crate::auth::Tenant;
use crate::envelope::{Answer, ApiError, Reply};
use crate::request::{Body, Params};
use crate::shared::AppRef;

/// RAGFlow's column is 512 characters; one tag at most 64.
const TAGS_MAX: usize = 512;
const TAG_MAX: usize = 64;

/// `GET /agents/tags[?canvas_category=…]`: `[{"tag", "count"}]`, most used first, then by name.
pub(crate) async fn list(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    params: Params,
) -> Answer {
    let category = params.get("canvas_category").filter(|c| !c.is_empty());
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for agent in app.store.agents(&tenant).await? {
        if category.is_some_and(|c| c != agent.canvas_category) {
            continue;
        }
        for tag in agent
            .tags
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            *counts.entry(tag.to_string()).or_default() += 1;
        }
    }
    let mut tags: Vec<(String, u64)> = counts.into_iter().collect();
    tags.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let data: Vec<Value> = tags
        .into_iter()
        .map(|(tag, count)| json!({"tag": tag, "count": count}))
        .collect();
    Ok(Reply::success(Value::Array(data)))
}

/// `PUT /agents/{agent_id}/tags` with `{"tags": [..] | "a,b"}`.
pub(crate) async fn set(
    State(app): State<AppRef>,
    Tenant(tenant): Tenant,
    Path(agent_id): Path<String>,
    body: Body,
) -> Answer {
    if !app.store.owns_agent(&tenant, &agent_id).await? {
        return Err(ApiError::operating("Agent not found or no permission."));
    }
    let tags = normalized(body.0.get("tags"));
    app.store.set_agent_tags(&agent_id, &tags).await?;
    Ok(Reply::success(Value::Bool(true)))
}

/// RAGFlow's `update_tags`: commas inside a tag become spaces, blanks go, duplicates go
/// (ignoring case, the first kept), each tag is cut to 64 characters, and tags stop where
/// the joined value would pass 512.
fn normalized(tags: Option<&Value>) -> String {
    let cleaned: Vec<String> = match tags {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|t| py::truthy(t))
            .map(|t| py::str_of(t).replace(',', " ").trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
        None | Some(Value::Null) => Vec::new(),
        Some(other) => py::str_of(other)
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
    };
    let mut seen = HashSet::new();
    let mut kept: Vec<String> = Vec::new();
    let mut used = 0;
    for tag in cleaned {
        let tag: String = tag.chars().take(TAG_MAX).collect();
        if !seen.insert(tag.to_lowercase()) {
            continue;
        }
        let extra = tag.chars().count() + usize::from(!kept.is_empty());
        if used + extra > TAGS_MAX {
            break;
        }
        used += extra;
        kept.push(tag);
    }
    kept.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_normalised_as_ragflow_stores_them() {
        assert_eq!(
            normalized(Some(&json!(["a,b", " x ", "X", "", "y"]))),
            "a b,x,y"
        );
        assert_eq!(normalized(Some(&json!("one, two,,one"))), "one,two");
        assert_eq!(normalized(None), "");
        let long = "t".repeat(100);
        assert_eq!(normalized(Some(&json!([long]))).len(), TAG_MAX);
        let many: Vec<String> = (0..200).map(|i| format!("tag{i:03}")).collect();
        let joined = normalized(Some(&json!(many)));
        assert!(
            joined.len() <= TAGS_MAX && joined.len() > TAGS_MAX - 8,
            "{}",
            joined.len()
        );
    }
}
