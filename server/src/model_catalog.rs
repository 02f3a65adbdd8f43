//! The models this server's configuration serves (`canvasc.toml`'s `[[models]]`,
//! `[factories.X]` and environment endpoint, handed over by the host), in the terms of
//! RAGFlow's model endpoints: a provider (RAGFlow's factory), an instance (canvasc has one per
//! provider, `default`), a model name and its types.

/// RAGFlow's factory for an OpenAI-compatible endpoint of no particular vendor: the provider
/// of a model the configuration serves under any factory.
pub const ANY_PROVIDER: &str = "OpenAI-API-Compatible";
/// The one instance of every provider (RAGFlow's default instance name).
pub const INSTANCE: &str = "default";
/// The name of a line that stands for any model of its provider.
pub const ANY_MODEL: &str = "*";

/// A model the configuration serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredModel {
    /// The model's id (`None`: any model of the factory, or of any factory).
    pub model: Option<String>,
    /// Its factory (`None`: the model is served under any factory).
    pub factory: Option<String>,
    /// Also image-to-text.
    pub vision: bool,
}

impl ConfiguredModel {
    pub(crate) fn provider(&self) -> &str {
        self.factory.as_deref().unwrap_or(ANY_PROVIDER)
    }

    pub(crate) fn name(&self) -> &str {
        self.model.as_deref().unwrap_or(ANY_MODEL)
    }

    /// RAGFlow's type names: every model chats; `vision` when it reads images too.
    pub(crate) fn types(&self) -> Vec<&'static str> {
        match self.vision {
            true => vec!["chat", "vision"],
            false => vec!["chat"],
        }
    }

    /// The llm_id a component names `name` of this line by (`name@Factory`, or `name`).
    pub(crate) fn llm_id(&self, name: &str) -> String {
        match &self.factory {
            Some(factory) => format!("{name}@{factory}"),
            None => name.to_string(),
        }
    }

    /// Whether this line serves the model `name` of `provider`.
    pub(crate) fn serves(&self, provider: &str, name: &str) -> bool {
        self.provider() == provider && self.model.as_deref().is_none_or(|m| m == name)
    }
}
