//! Agent (components.md §7): an LLM with tools. Without tools it is exactly the LLM; with
//! tools the model handle runs RAGFlow's native tool-calling loop (`llm::bundle`), and the
//! final answer streams into a downstream Message. Tools are the DSL's tool components,
//! including other Agents (agent-as-tool), which run with their own parameters and keep their
//! inputs and outputs to themselves.

use super::llm::{
    apply, clean_formatted_answer, fail, fit_messages, llm_run, node_role, split_system,
    structured_record, Llm, Outcome, Prepared, Role,
};
use super::Component;
use crate::clock::perf_counter;
use crate::context::{NodeCx, Shared};
use crate::error::RunError;
use crate::external::ToolCx;
use crate::llm::bundle::{Bundle, ToolSession, Tools};
use crate::llm::kb_prompt::kb_prompt;
use crate::llm::prompts::Prompts;
use crate::llm::think_split::think_pieces;
use crate::llm::{json_repair, ChatMessage};
use crate::mcp::McpSession;
use crate::state::InputKeys;
use crate::val::LazyStream;
use canvasc_frontend::binding::Resolve;
use canvasc_frontend::catalog::defaults::merged_params;
use canvasc_frontend::catalog::tool_meta::tool_meta;
use canvasc_frontend::catalog::{resolve_name, Kind};
use canvasc_frontend::ir::NodeId;
use canvasc_frontend::meta::Target;
use canvasc_value::{py, Json, Map};
use futures::future::BoxFuture;
use futures::StreamExt;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An Agent's parameters, as a canvas node or as a tool of another Agent.
#[derive(Clone, Debug)]
pub struct Spec {
    pub llm: Llm,
    pub tools: Arc<[Tool]>,
    /// The tools of the MCP servers `mcp` names, numbered after `tools`.
    pub mcp: Arc<[McpTool]>,
    pub max_rounds: usize,
    /// `description` (the function description when used as a tool).
    pub description: String,
    /// `user_prompt`: the default shown in the agent-as-tool schema.
    pub user_prompt: String,
    /// The `outputs` parameter (a sub-agent's structured-output schema lives there).
    pub outputs: Json,
    /// A sub-agent's exception settings (a node's are in its meta).
    pub exception_method: Option<String>,
    pub exception_default: Json,
}

/// One tool of an Agent.
#[derive(Clone, Debug)]
pub struct Tool {
    /// `<function name>_<index>`, the name the model calls it by.
    pub name: String,
    pub kind: Option<Kind>,
    pub component_name: String,
    /// The OpenAI function schema, under the indexed name.
    pub schema: Json,
    /// The Agent this tool is, for agent-as-tool.
    pub agent: Option<Box<Spec>>,
    /// The entry's parameters merged with RAGFlow's defaults for its kind (the tool object's
    /// `_param`), which an implementation outside the engine runs with.
    pub params: Arc<Map<String, Json>>,
}

impl Spec {
    pub fn from_params(p: &Map<String, Json>) -> Self {
        let text = |k: &str| p.get(k).and_then(Json::as_str).unwrap_or("").to_string();
        let tools: Vec<Tool> = match p.get("tools") {
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, t)| Tool::from_entry(t, i))
                .collect(),
            _ => Vec::new(),
        };
        let exception_method = p
            .get("exception_method")
            .and_then(Json::as_str)
            .filter(|m| !m.is_empty())
            .map(str::to_string);
        Spec {
            llm: Llm::from_params(p),
            mcp: mcp_tools(p.get("mcp"), tools.len()).into(),
            tools: tools.into(),
            max_rounds: p
                .get("max_rounds")
                .and_then(Json::as_u64)
                .map_or(5, |n| n as usize),
            description: text("description"),
            user_prompt: text("user_prompt"),
            outputs: p.get("outputs").cloned().unwrap_or(Json::Null),
            exception_method,
            exception_default: p
                .get("exception_default_value")
                .cloned()
                .unwrap_or(Json::Null),
        }
    }

    fn has_tools(&self) -> bool {
        !self.tools.is_empty() || !self.mcp.is_empty()
    }

    /// `get_meta()` of this Agent used as the tool named `function_name`.
    fn tool_schema(&self, function_name: &str) -> Json {
        let mut schema = meta_schema(Kind::Agent, function_name, &self.description);
        if !self.user_prompt.is_empty() {
            if let Some(Json::Object(up)) =
                schema.pointer_mut("/function/parameters/properties/user_prompt")
            {
                up.insert("default".into(), Json::String(self.user_prompt.clone()));
            }
        }
        schema
    }
}

impl Tool {
    fn from_entry(entry: &Json, index: usize) -> Tool {
        let component_name = entry
            .get("component_name")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string();
        let kind = resolve_name(&component_name).kind();
        let params = entry
            .get("params")
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default();
        let (schema, agent) = if kind == Some(Kind::Agent) {
            let sub = Spec::from_params(&params);
            // A sub-agent's function name is the last `-->` segment of its id: the entry's name.
            let fname = entry
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or("")
                .replace(' ', "_");
            (sub.tool_schema(&fname), Some(Box::new(sub)))
        } else {
            let fname = params
                .get("function_name")
                .and_then(Json::as_str)
                .map(str::to_string)
                .or_else(|| {
                    kind.and_then(tool_meta)
                        .map(|m| m.function_name.to_string())
                })
                .unwrap_or_else(|| component_name.clone());
            let desc = params
                .get("description")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string();
            (
                kind.map_or(Json::Null, |k| meta_schema(k, &fname, &desc)),
                None,
            )
        };
        let base = schema
            .pointer("/function/name")
            .and_then(Json::as_str)
            .unwrap_or(&component_name)
            .to_string();
        let name = format!("{base}_{index}");
        let mut schema = schema;
        if let Some(n) = schema.pointer_mut("/function/name") {
            *n = Json::String(name.clone());
        }
        let params = match kind {
            Some(k) if agent.is_none() => merged_params(k, &params),
            _ => params,
        };
        Tool {
            name,
            kind,
            component_name,
            schema,
            agent,
            params: Arc::new(params),
        }
    }
}

/// One tool of an MCP server, as the model sees it.
#[derive(Clone, Debug)]
pub struct McpTool {
    /// `<tool name>_<index>`, continuing the component tools' numbering.
    pub name: String,
    /// The server's id (`mcp_id`).
    pub server: String,
    /// The name the server knows the tool by.
    pub original: String,
    /// `mcp_tool_metadata_to_openai_tool`: the server's description and input schema.
    pub schema: Json,
}

/// The `mcp` parameter: `[{"mcp_id", "tools": {name: {name, description, inputSchema}}}]`.
fn mcp_tools(mcp: Option<&Json>, first_index: usize) -> Vec<McpTool> {
    let mut out = Vec::new();
    for entry in mcp
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let server = entry.get("mcp_id").map(py::str_of).unwrap_or_default();
        let Some(tools) = entry.get("tools").and_then(Json::as_object) else {
            continue;
        };
        for (original, meta) in tools {
            let name = format!("{original}_{}", first_index + out.len());
            let field = |k: &str| meta.get(k).cloned().unwrap_or(Json::Null);
            out.push(McpTool {
                schema: serde_json::json!({"type": "function", "function": {
                    "name": name, "description": field("description"),
                    "parameters": field("inputSchema")}}),
                name,
                server: server.clone(),
                original: original.clone(),
            });
        }
    }
    out
}

/// `ToolParamBase.get_meta()`: name, description (the parameter's when set), and each
/// parameter's type, description and enum.
fn meta_schema(kind: Kind, function_name: &str, description: &str) -> Json {
    let Some(meta) = tool_meta(kind) else {
        return Json::Null;
    };
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in meta.parameters {
        let mut prop = Map::new();
        prop.insert("type".into(), Json::String(p.ty.into()));
        prop.insert("description".into(), Json::String(p.description.into()));
        if !p.enum_values.is_empty() {
            prop.insert(
                "enum".into(),
                Json::Array(
                    p.enum_values
                        .iter()
                        .map(|v| Json::String((*v).into()))
                        .collect(),
                ),
            );
        }
        properties.insert(p.name.into(), Json::Object(prop));
        if p.required {
            required.push(Json::String(p.name.into()));
        }
    }
    let description = if description.is_empty() {
        meta.description
    } else {
        description
    };
    serde_json::json!({"type": "function", "function": {
        "name": function_name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required}}})
}

/// `_get_output_schema`: `outputs.structured` with properties, or its nested `schema` /
/// `structured` object with properties.
fn output_schema(structured: Option<&Json>) -> Option<Json> {
    let cand = structured?.as_object()?;
    let has_props = |m: &Map<String, Json>| {
        m.get("properties")
            .and_then(Json::as_object)
            .is_some_and(|p| !p.is_empty())
    };
    if has_props(cand) {
        return Some(Json::Object(cand.clone()));
    }
    ["schema", "structured"]
        .iter()
        .filter_map(|k| cand.get(*k).and_then(Json::as_object))
        .find(|m| has_props(m))
        .map(|m| Json::Object(m.clone()))
}

/// The prompts an Agent called as a tool answers (`user_prompt`, `reasoning`, `context`).
fn tool_prompt(args: &Map<String, Json>) -> Option<String> {
    let get = |k: &str| args.get(k).filter(|v| py::truthy(v)).map(py::str_of);
    let user_prompt = get("user_prompt")?;
    let mut p = String::new();
    if let Some(r) = get("reasoning") {
        p.push_str(&format!("\nREASONING:\n{r}\n"));
    }
    if let Some(c) = get("context") {
        p.push_str(&format!("\nCONTEXT:\n{c}\n"));
    }
    Some(if p.is_empty() {
        user_prompt
    } else {
        p + &format!("\nQUERY:\n{user_prompt}\n")
    })
}

/// `Agent._invoke_async`.
fn run<'a>(
    spec: &'a Spec,
    cx: &'a NodeCx<'a>,
    role: Role,
    args: &'a Map<String, Json>,
    structured: Option<Json>,
) -> BoxFuture<'a, Result<Outcome, RunError>> {
    Box::pin(async move {
        if role.canceled(cx) {
            return Ok(Outcome::Canceled);
        }
        let llm: Cow<Llm> = match tool_prompt(args) {
            Some(p) => Cow::Owned(spec.llm.with_prompts(vec![("user".into(), p)])),
            None => Cow::Borrowed(&spec.llm),
        };
        let mut bundle = llm.bundle(cx)?;
        bundle.max_rounds = spec.max_rounds;
        if !spec.has_tools() {
            return llm_run(&llm, cx, &role, bundle, structured).await;
        }
        let prep = llm.prepare(cx, role.node)?;
        let schema = output_schema(structured.as_ref());
        let servers = mcp_sessions(spec, cx)?;
        bundle.tools = Some(Tools {
            schemas: spec
                .tools
                .iter()
                .map(|t| t.schema.clone())
                .chain(spec.mcp.iter().map(|t| t.schema.clone()))
                .collect(),
            session: Arc::new(AgentTools {
                shared: Arc::clone(cx.shared),
                node: cx.node,
                tools: Arc::clone(&spec.tools),
                mcp: Arc::clone(&spec.mcp),
                servers,
            }),
        });
        if role.streams && schema.is_none() {
            let stream = agent_stream(
                Arc::clone(cx.shared),
                cx.node,
                bundle,
                llm.gen_conf.clone(),
                prep,
                llm.cite,
            );
            return Ok(Outcome::Stream(stream));
        }
        let mut msg = match fit_messages(&prep.sys_prompt, &prep.msg, bundle.max_length) {
            Ok(m) => m,
            Err(e) => return Ok(role.fail(e)),
        };
        let schema_prompt = schema.as_ref().map(|s| {
            cx.shared
                .services
                .prompts
                .structured_output_prompt(&py::json_dumps_indent(s, 2, false))
        });
        if let Some(sp) = &schema_prompt {
            append_system(&mut msg, sp);
        }
        let (system, history) = split_system(msg);
        let mut ans = bundle.chat(&system, history, &llm.gen_conf).await;
        if ans.contains("**ERROR**") {
            return Ok(role.fail(ans));
        }
        if let Some(sp) = &schema_prompt {
            for _ in 0..=llm.max_retries {
                match json_repair::loads(&clean_formatted_answer(&ans)) {
                    Json::String(s) if s.is_empty() && !ans.trim().is_empty() => {
                        // Nothing JSON-like: ask for the answer in the schema's shape.
                        let fmt = vec![
                            ChatMessage::new("system", format!("{sp}\nIMPORTANT: Output ONLY valid JSON. No markdown, no extra text.")),
                            ChatMessage::new("user", ans.clone()),
                        ];
                        let (sys, hist) = split_system(fmt);
                        ans = bundle.chat(&sys, hist, &llm.gen_conf).await;
                    }
                    v => return Ok(Outcome::Structured(v)),
                }
            }
            return Ok(Outcome::Error("The answer cannot be parsed as JSON".into()));
        }
        Ok(Outcome::Content(Json::String(ans)))
    })
}

/// `_append_system_prompt`.
fn append_system(msg: &mut [ChatMessage], extra: &str) {
    if let Some(first) = msg
        .first_mut()
        .filter(|m| m.role == "system" && !extra.is_empty())
    {
        let c = first.content.get_or_insert_with(String::new);
        c.push('\n');
        c.push_str(extra);
    }
}

/// One session per MCP server the Agent names. RAGFlow fails to load a canvas that names an
/// unknown server; canvasc fails the Agent with what to configure.
fn mcp_sessions(spec: &Spec, cx: &NodeCx<'_>) -> Result<BTreeMap<String, McpSession>, RunError> {
    let services = &cx.shared.services;
    let mut out = BTreeMap::new();
    for tool in spec.mcp.iter() {
        if out.contains_key(&tool.server) {
            continue;
        }
        let Some(server) = services.mcp.get(&tool.server) else {
            return Err(RunError::msg(format!(
                "{}: parameter `mcp` names the MCP server `{}`, which is not configured: add a [mcp_servers.\"{}\"] section with its url to canvasc.toml",
                cx.meta().id,
                tool.server,
                tool.server
            )));
        };
        out.insert(
            tool.server.clone(),
            McpSession::new(server.clone(), &services.custom_header),
        );
    }
    Ok(out)
}

/// The tools of one Agent (`LLMToolPluginCallSession`).
struct AgentTools {
    shared: Arc<Shared>,
    node: NodeId,
    tools: Arc<[Tool]>,
    mcp: Arc<[McpTool]>,
    /// Closed (dropped) with the session, when the Agent's answer is complete.
    servers: BTreeMap<String, McpSession>,
}

impl ToolSession for AgentTools {
    fn call(&self, name: String, args: Map<String, Json>) -> BoxFuture<'_, Result<Json, String>> {
        Box::pin(async move {
            let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
                let mcp = self
                    .mcp
                    .iter()
                    .find(|t| t.name == name)
                    .and_then(|t| Some((t, self.servers.get(&t.server)?)));
                let Some((tool, server)) = mcp else {
                    return Err(format!("LLM tool {name} does not exist"));
                };
                return Ok(Json::String(server.call(&tool.original, args).await));
            };
            let Some(sub) = &tool.agent else {
                return Ok(self.call_external(tool, args).await);
            };
            let cx = NodeCx::new(self.node, &self.shared);
            let role = Role {
                node: false,
                default: (sub.exception_method.as_deref() == Some("comment")
                    && py::truthy(&sub.exception_default))
                .then(|| sub.exception_default.clone()),
                streams: false,
            };
            let structured = sub.outputs.get("structured").cloned();
            // ToolBase.invoke_async: an exception becomes the result text.
            let outcome = match run(sub, &cx, role, &args, structured).await {
                Ok(o) => o,
                Err(e) => return Ok(Json::String(e.to_string())),
            };
            Ok(match outcome {
                // `output()["content"]` when it is neither None nor "".
                Outcome::Content(v) if !v.is_null() && v != "" => v,
                Outcome::Structured(v) => v,
                Outcome::Error(e) => serde_json::json!({"content": null, "_ERROR": e}),
                _ => serde_json::json!({"content": null}),
            })
        })
    }
}

impl AgentTools {
    /// A tool implemented outside the engine, run as ToolBase's `invoke_async` and
    /// `tool_call_async` do: an exception becomes `_ERROR` and the result text; a `None` result
    /// falls back to the tool's `output()` (its `content` when set).
    async fn call_external(&self, tool: &Tool, args: Map<String, Json>) -> Json {
        let implementation = tool
            .kind
            .and_then(|k| Some((k, self.shared.services.external.get(k)?.clone())));
        let Some((kind, implementation)) = implementation else {
            return Json::String(format!(
                "canvasc cannot run {} tools yet",
                tool.component_name
            ));
        };
        let cx = NodeCx::new(self.node, &self.shared);
        let tcx = ToolCx::agent_tool(&cx, kind, &tool.params, &tool.name);
        if tcx.check_canceled() {
            return Json::Null;
        }
        tcx.set_output("_created_time", perf_counter().into());
        // A cancel ends the tool's call in flight after the grace (see `external.rs`).
        let call = implementation.invoke(&tcx, args);
        let Some(done) = self.shared.cancel.or_cancel_after_grace(call).await else {
            tcx.check_canceled();
            return Json::Null;
        };
        let result = match done {
            Ok(v) => v,
            Err(e) => {
                let text = e.to_string();
                tcx.set_output("_ERROR", Json::String(text.clone()));
                Json::String(text)
            }
        };
        if !result.is_null() {
            return result;
        }
        let outputs = tcx.tool_outputs();
        match outputs.get("content") {
            Some(c) if !c.is_null() && c != "" => c.clone(),
            _ => Json::Object(outputs),
        }
    }
}

/// `stream_output_with_tools_async` as a lazy stream.
fn agent_stream(
    shared: Arc<Shared>,
    node: NodeId,
    bundle: Bundle,
    gen_conf: Map<String, Json>,
    prep: Prepared,
    cite: bool,
) -> LazyStream {
    let prep = Arc::new(prep);
    LazyStream::new(move || {
        let (shared, bundle, gen_conf, prep) = (
            Arc::clone(&shared),
            bundle.clone(),
            gen_conf.clone(),
            Arc::clone(&prep),
        );
        Box::pin(async_stream::stream! {
            let cx = NodeCx::new(node, &shared);
            let mut msg = prep.msg.clone();
            if msg.len() > 3 {
                let question = full_question(&shared.services.prompts, &bundle, &msg).await;
                msg.pop();
                msg.push(ChatMessage::new("user", question));
            }
            let mut msg = match fit_messages(&prep.sys_prompt, &msg, bundle.max_length) {
                Ok(m) => m,
                Err(e) => {
                    if let Some(shown) = fail(&cx, e, true) {
                        yield Ok(shown);
                    }
                    return;
                }
            };
            let need2cite = if !cite {
                NeedToCite::Fixed(false)
            } else if cx.state().has_chunks() {
                NeedToCite::Fixed(!cx.meta().id.contains("-->"))
            } else {
                NeedToCite::Live
            };
            let cited = need2cite == NeedToCite::Fixed(true) && msg.len() < 7;
            if cited {
                append_system(&mut msg, &shared.services.prompts.citation_prompt(None));
            }
            let (system, history) = split_system(msg);
            let deltas = bundle.chat_stream_delta(&system, history, &gen_conf);
            let mut pieces = think_pieces(deltas);
            let mut answer = String::new();
            while let Some(piece) = pieces.next().await {
                if cx.check_canceled() {
                    return;
                }
                if piece.contains("**ERROR**") {
                    if let Some(shown) = fail(&cx, piece, true) {
                        yield Ok(shown);
                    }
                    return;
                }
                if !need2cite.now(&cx) || cited {
                    yield Ok(piece.clone());
                }
                answer.push_str(&piece);
            }
            if !need2cite.now(&cx) || cited {
                cx.set_output("content", Json::String(answer));
                return;
            }
            // `_gen_citations_async`: the answer again, cited over the turn's references.
            let reference = cx.state().reference();
            let chunks: Vec<Json> = match reference.get("chunks") {
                Some(Json::Object(chunks)) => chunks.values().cloned().collect(),
                _ => Vec::new(),
            };
            let budget = usize::try_from(bundle.max_length).unwrap_or(usize::MAX);
            let sources = kb_prompt(&chunks, budget).join("\n\n");
            let system = shared.services.prompts.citation_plus(&sources);
            let deltas = bundle.chat_stream_delta(&system, vec![ChatMessage::new("user", answer)], &gen_conf);
            let mut pieces = think_pieces(deltas);
            let mut cited_answer = String::new();
            while let Some(piece) = pieces.next().await {
                if cx.check_canceled() {
                    return;
                }
                cited_answer.push_str(&piece);
                yield Ok(piece);
            }
            cx.set_output("content", Json::String(cited_answer));
        })
    })
}

/// `need2cite` of `stream_output_with_tools_async`: `cite and get_reference()["chunks"] and
/// <not a sub-agent>`. Python's `and` yields its first falsy operand, so with `cite` set and no
/// chunks yet it *is* the turn's chunk dict: the tools the model calls fill that dict while the
/// answer streams, and from then on the answer is held back and cited in a second pass. So
/// the "Running the … tool…" think text before the first tool result is shown, and the rest of
/// the first answer is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NeedToCite {
    /// Decided when the stream starts.
    Fixed(bool),
    /// Whether the turn has chunks at the moment it is read.
    Live,
}

impl NeedToCite {
    fn now(self, cx: &NodeCx<'_>) -> bool {
        match self {
            NeedToCite::Fixed(b) => b,
            NeedToCite::Live => cx.state().has_chunks(),
        }
    }
}

/// `full_question`: the latest user turn rewritten as a complete question (the handle's tools
/// stay bound, as in RAGFlow); the original text when the model fails.
async fn full_question(prompts: &Prompts, bundle: &Bundle, msg: &[ChatMessage]) -> String {
    let conversation: Vec<String> = msg
        .iter()
        .filter(|m| m.role == "user" || m.role == "assistant")
        .map(|m| {
            format!(
                "{}: {}",
                m.role.to_uppercase(),
                m.content.as_deref().unwrap_or("")
            )
        })
        .collect();
    let system = prompts.full_question_prompt(&conversation.join("\n"));
    let ans = bundle
        .chat(
            &system,
            vec![ChatMessage::new("user", "Output: ")],
            &Map::new(),
        )
        .await;
    let ans = match ans.rfind("</think>") {
        Some(i) => ans[i + "</think>".len()..].to_string(),
        None => ans,
    };
    if ans.contains("**ERROR**") {
        msg.last()
            .and_then(|m| m.content.clone())
            .unwrap_or_default()
    } else {
        ans
    }
}

impl Component for Spec {
    async fn body<'a>(&'a self, cx: &'a NodeCx<'a>) -> Result<(), RunError> {
        let role = node_role(cx)?;
        let structured = structured_record(cx);
        let outcome = run(self, cx, role, &cx.kwargs, structured).await?;
        apply(cx, outcome);
        Ok(())
    }

    fn thoughts<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, str>, RunError> {
        self.llm.thoughts(cx).map(Cow::Owned)
    }

    fn dependencies<'a>(&'a self, cx: &NodeCx<'_>) -> Result<Cow<'a, [Target]>, RunError> {
        self.llm.dependencies(cx)
    }

    fn input_keys<'a>(&'a self, cx: &NodeCx<'_>) -> InputKeys<'a> {
        self.llm.input_keys(cx)
    }

    fn bind(&mut self, r: &dyn Resolve) {
        self.llm.bind(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_are_named_by_function_and_position() {
        let p = json!({"tools": [
            {"component_name": "TavilySearch", "name": "TavilySearch", "params": {}},
            {"component_name": "Agent", "name": "Web Search Specialist",
             "params": {"description": "Searches.", "user_prompt": "go", "llm_id": "m"}}]});
        let s = Spec::from_params(p.as_object().expect("object"));
        assert_eq!(s.tools[0].name, "tavily_search_0");
        assert_eq!(s.tools[1].name, "Web_Search_Specialist_1");
        assert_eq!(s.tools[1].schema["function"]["description"], "Searches.");
        assert_eq!(
            s.tools[1].schema["function"]["parameters"]["properties"]["user_prompt"]["default"],
            "go"
        );
        assert_eq!(
            s.tools[1].schema["function"]["parameters"]["required"],
            json!(["user_prompt", "reasoning", "context"])
        );
    }

    #[test]
    fn a_tool_call_becomes_the_sub_agents_prompt() {
        let args = json!({"user_prompt": "find x", "reasoning": "", "context": "ctx"});
        assert_eq!(
            tool_prompt(args.as_object().expect("object")).as_deref(),
            Some("\nCONTEXT:\nctx\n\nQUERY:\nfind x\n")
        );
        let bare = json!({"user_prompt": "find x"});
        assert_eq!(
            tool_prompt(bare.as_object().expect("object")).as_deref(),
            Some("find x")
        );
    }
}
