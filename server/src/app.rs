//! The router: every route of the API, the 404 and 405 answers, CORS, body limits and the
//! trailing-slash rule, assembled around the shared server state.

use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderValue;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post, put};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, Any, CorsLayer};

use crate::api::{
    account, admin, agentbots, agents, attachments, completions, editor, files, input_form, models,
    openai, reset, run_logs, run_stream, runs, sessions, system, tags, tasks, versions,
};
use crate::envelope::{json_response, ApiError, EXCEPTION_ERROR};
use crate::shared::AppRef;
use crate::telemetry;

/// Static segments (`download`) win over `{agent_id}`, as RAGFlow routes them.
pub(crate) fn router(app: AppRef) -> Router {
    let limit = app.max_body_bytes;
    let router = Router::new()
        .route("/api/v1/system/ping", get(ping))
        // Prometheus scrapes without an API key, like RAGFlow's unauthenticated ping; the one
        // route outside `/api/v1` (http-api.md §1 exception, README "Telemetry").
        .route("/metrics", get(metrics))
        .route("/healthz", get(crate::health::healthz))
        .route("/readyz", get(crate::health::readyz))
        .route("/api/v1/users", post(account::register))
        .route("/api/v1/auth/login", post(account::login))
        .route("/api/v1/auth/logout", post(account::logout))
        .route("/api/v1/system/config", get(system::config))
        .route("/api/v1/admin/users", post(admin::create_account))
        .route(
            "/api/v1/admin/invitations",
            get(admin::list_invitations).post(admin::create_invitation),
        )
        .route(
            "/api/v1/system/tokens",
            get(account::list_keys).post(account::create_key),
        )
        .route("/api/v1/system/tokens/{key}", delete(account::delete_key))
        .route("/api/v1/models", get(models::list))
        .route(
            "/api/v1/models/default",
            get(models::defaults).patch(models::set_default),
        )
        .route("/api/v1/agents", get(agents::list).post(agents::create))
        .route("/api/v1/agents/download", get(files::download))
        .route("/api/v1/agents/tags", get(tags::list))
        .route("/api/v1/agents/{agent_id}/tags", put(tags::set))
        .route(
            "/api/v1/agents/chat/completions",
            post(completions::completions),
        )
        .route(
            "/api/v1/agents/{agent_id}/completions",
            post(completions::by_path),
        )
        .route(
            "/api/v1/agents_openai/{agent_id}/chat/completions",
            post(completions::openai_alias),
        )
        .route(
            "/api/v1/agents_openai/{agent_id}/models",
            get(openai::models),
        )
        .route(
            "/api/v1/agentbots/{agent_id}/completions",
            post(agentbots::completions),
        )
        .route(
            "/api/v1/agentbots/{agent_id}/inputs",
            get(agentbots::inputs),
        )
        .route(
            "/api/v1/agentbots/{agent_id}/logs/{message_id}",
            get(agentbots::logs),
        )
        .route("/api/v1/agents/{agent_id}/reset", post(reset::reset))
        .route("/api/v1/tasks/{session_id}/cancel", post(tasks::cancel))
        .route("/api/v1/tasks/{session_id}", patch(tasks::patch))
        .route(
            "/api/v1/agents/{agent_id}",
            get(agents::get).put(agents::update).delete(agents::delete),
        )
        .route("/api/v1/agents/{agent_id}/versions", get(versions::list))
        .route(
            "/api/v1/agents/{agent_id}/versions/{version_id}",
            get(versions::get).delete(versions::delete),
        )
        .route("/api/v1/agents/{agent_id}/publish", post(agents::publish))
        .route(
            "/api/v1/agents/{agent_id}/versions/{version_id}/build_log",
            get(versions::build_log),
        )
        .route(
            "/api/v1/agents/{agent_id}/versions/{version_id}/build",
            post(versions::retry_build),
        )
        .route(
            "/api/v1/agents/{agent_id}/sessions",
            get(sessions::list)
                .post(sessions::create)
                .delete(sessions::delete_many),
        )
        .route(
            "/api/v1/agents/{agent_id}/sessions/{session_id}",
            get(sessions::get).delete(sessions::delete_one),
        )
        .route("/api/v1/agents/{agent_id}/upload", post(files::upload))
        .route(
            "/api/v1/agents/{agent_id}/logs/{message_id}",
            get(run_logs::get),
        )
        .route(
            "/api/v1/agents/{agent_id}/runs/{message_id}",
            get(runs::get),
        )
        .route(
            "/api/v1/agents/{agent_id}/components/{component_id}/input-form",
            get(input_form::get),
        )
        .route(
            "/api/v1/agents/{agent_id}/runs/{message_id}/stream",
            get(run_stream::stream),
        )
        .merge(editor::routes())
        .merge(crate::webhook::routes())
        .merge(attachments::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(CatchPanicLayer::custom(panicked));
    // Same-origin only unless the operator names the web origins that may call the API from
    // a browser: a permissive policy would let any page a user visits drive their session.
    let router = match cross_origin(&app.cors_origins) {
        Some(cors) => router.layer(cors),
        None => router,
    };
    router
        .layer(axum::middleware::from_fn(telemetry::request_span))
        .with_state(app)
}

/// The CORS policy for the configured origins (`CANVASC_CORS_ORIGINS`); none configured, no
/// CORS headers at all, so browsers keep other origins out.
fn cross_origin(origins: &[HeaderValue]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(origins.iter().cloned()))
            .allow_methods(Any)
            .allow_headers(Any)
            .expose_headers(Any),
    )
}

async fn ping() -> &'static str {
    "pong"
}

async fn metrics(State(app): State<AppRef>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        app.metrics.render(app.coord.streams().kept_bytes()),
    )
        .into_response()
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(uri.path())
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed()
}

/// A handler that panicked still answers an envelope (RAGFlow's code for unhandled failures).
fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    json_response(
        StatusCode::OK,
        &serde_json::json!({"code": EXCEPTION_ERROR,
            "message": "Internal error: the server failed while answering this request.",
            "data": null}),
    )
    .into_response()
}
