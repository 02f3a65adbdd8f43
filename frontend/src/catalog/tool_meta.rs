//! Tool function metadata: each tool's `self.meta` from RAGFlow's `ToolParamBase`
//! subclasses (and `AgentParam` for an Agent used as a tool), in meta order.

use super::Kind;

/// The function schema a tool exposes to a model (`meta` of RAGFlow's `ToolParamBase`).
#[derive(Debug)]
pub struct ToolMeta {
    pub function_name: &'static str,
    pub description: &'static str,
    pub parameters: &'static [MetaParam],
}

/// One entry of `meta.parameters`.
#[derive(Debug)]
pub struct MetaParam {
    pub name: &'static str,
    pub ty: &'static str,
    pub description: &'static str,
    /// JSON text of the default, when the meta declares one.
    pub default: Option<&'static str>,
    pub required: bool,
    pub enum_values: &'static [&'static str],
    /// JSON text of the `items` schema, for array parameters.
    pub items: Option<&'static str>,
    pub display_description: Option<&'static str>,
}

/// The meta of a tool kind, or of Agent (its agent-as-tool schema). Jin10 and TuShare are legacy
/// `ComponentParamBase` classes without a meta, so they, like every other component, have none.
pub fn tool_meta(kind: Kind) -> Option<&'static ToolMeta> {
    Some(match kind {
        Kind::Agent => &AGENT,
        Kind::AkShare => &AK_SHARE,
        Kind::ArXiv => &AR_XIV,
        Kind::Bgpt => &BGPT,
        Kind::CodeExec => &CODE_EXEC,
        Kind::Crawler => &CRAWLER,
        Kind::DeepL => &DEEP_L,
        Kind::DuckDuckGo => &DUCK_DUCK_GO,
        Kind::Email => &EMAIL,
        Kind::ExeSql => &EXE_SQL,
        Kind::GitHub => &GIT_HUB,
        Kind::Google => &GOOGLE,
        Kind::GoogleScholar => &GOOGLE_SCHOLAR,
        Kind::KeenableSearch => &KEENABLE_SEARCH,
        Kind::PubMed => &PUB_MED,
        Kind::QueritSearch => &QUERIT_SEARCH,
        Kind::QueritContents => &QUERIT_CONTENTS,
        Kind::QWeather => &QWEATHER,
        Kind::Retrieval => &RETRIEVAL,
        Kind::SearXng => &SEAR_XNG,
        Kind::TavilySearch => &TAVILY_SEARCH,
        Kind::TavilyExtract => &TAVILY_EXTRACT,
        Kind::WenCai => &WEN_CAI,
        Kind::Wikipedia => &WIKIPEDIA,
        Kind::YahooFinance => &YAHOO_FINANCE,
        // Legacy `ComponentParamBase` tools without a meta, and every component but Agent.
        // Named one by one, so that a new kind does not compile until it is decided here.
        Kind::Jin10
        | Kind::TuShare
        | Kind::Begin
        | Kind::UserFillUp
        | Kind::Message
        | Kind::Llm
        | Kind::Categorize
        | Kind::Switch
        | Kind::Iteration
        | Kind::IterationItem
        | Kind::Loop
        | Kind::LoopItem
        | Kind::ExitLoop
        | Kind::Invoke
        | Kind::Browser
        | Kind::DataOperations
        | Kind::ListOperations
        | Kind::StringTransform
        | Kind::VariableAggregator
        | Kind::VariableAssigner
        | Kind::DocGenerator
        | Kind::ExcelProcessor
        | Kind::Answer => return None,
    })
}

static AGENT: ToolMeta = ToolMeta {
    function_name: "agent",
    description: "This is an agent for a specific task.",
    parameters: &[
        MetaParam {
            name: "user_prompt",
            ty: "string",
            description: "This is the order you need to send to the agent.",
            default: Some(r#""""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "reasoning",
            ty: "string",
            description: "Supervisor's reasoning for choosing the this agent. Explain why this agent is being invoked and what is expected of it.",
            default: None,
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "context",
            ty: "string",
            description: "All relevant background information, prior facts, decisions, and state needed by the agent to solve the current query. Should be as detailed and self-contained as possible.",
            default: None,
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static AK_SHARE: ToolMeta = ToolMeta {
    function_name: "akshare_stock_news",
    description: "AkShare retrieves the latest news articles for a given Chinese A-share stock from East Money (东方财富).",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The stock symbol/code to fetch news for, e.g. '600519'.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static AR_XIV: ToolMeta = ToolMeta {
    function_name: "arxiv_search",
    description: "arXiv is a free distribution service and an open-access archive for nearly 2.4 million scholarly articles in the fields of physics, mathematics, computer science, quantitative biology, quantitative finance, statistics, electrical engineering and systems science, and economics. Materials on this site are not peer-reviewed by arXiv.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with arXiv. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static BGPT: ToolMeta = ToolMeta {
    function_name: "bgpt_search",
    description: "BGPT searches scientific papers and returns structured evidence extracted from full-text studies: methods, sample sizes, results, limitations, conflicts of interest, data/code availability, study blind spots, quality scores, and falsification prompts. Useful when the agent must judge a scientific claim, not just find abstracts.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "Natural-language scientific search query. Use the most important terms from the user's request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static CODE_EXEC: ToolMeta = ToolMeta {
    function_name: "execute_code",
    description: "\nThis tool has a sandbox that can execute code written in 'Python'/'Javascript'. It receives a piece of code and return a Json string.\n\nHere's a code example for Python(`main` function MUST be included):\ndef main() -> dict:\n    \"\"\"\n    Generate Fibonacci numbers within 100.\n    \"\"\"\n    def fibonacci_recursive(n):\n        if n <= 1:\n            return n\n        else:\n            return fibonacci_recursive(n-1) + fibonacci_recursive(n-2)\n    return {\n        \"result\": fibonacci_recursive(100),\n    }\n\nTo generate charts or files (images, PDFs, CSVs, etc.), save them to the `artifacts/` directory (relative to the working directory). The sandbox will automatically collect these files and return them. Example:\ndef main() -> dict:\n    import matplotlib\n    matplotlib.use(\"Agg\")\n    import matplotlib.pyplot as plt\n    import pandas as pd\n\n    df = pd.DataFrame({\"x\": [1, 2, 3, 4], \"y\": [10, 20, 25, 30]})\n    fig, ax = plt.subplots()\n    ax.plot(df[\"x\"], df[\"y\"])\n    ax.set_title(\"Sample Chart\")\n    fig.savefig(\"artifacts/chart.png\", dpi=150, bbox_inches=\"tight\")\n    plt.close(fig)\n    return {\"summary\": \"Chart saved to artifacts/chart.png\"}\n\nAvailable Python packages: pandas, numpy, matplotlib, requests.\nSupported artifact file types: .png, .jpg, .jpeg, .svg, .pdf, .csv, .json, .html\n\nCollected artifacts are also parsed automatically and appended to the stable text output `content`. The content includes sections like `attachment1 (image): ...`, `attachment2 (pdf): ...`, so downstream nodes can consume a single text output without depending on unstable attachment-specific variables.\n\nHere's a code example for Javascript(`main` function MUST be included and exported):\nconst axios = require('axios');\nasync function main(args) {\n  try {\n    const response = await axios.get('https://github.com/infiniflow/ragflow');\n    console.log('Body:', response.data);\n  } catch (error) {\n    console.error('Error:', error.message);\n  }\n}\nmodule.exports = { main };\n            ",
    parameters: &[
        MetaParam {
            name: "lang",
            ty: "string",
            description: "The programming language of this piece of code.",
            default: None,
            required: true,
            enum_values: &["python", "javascript"],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "script",
            ty: "string",
            description: "A piece of code in right format. There MUST be main function.",
            default: None,
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static CRAWLER: ToolMeta = ToolMeta {
    function_name: "web_crawler",
    description: "This tool can be used to crawl a web page and return its content as HTML, Markdown, or the extracted main text.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The absolute URL (including the http:// or https:// scheme) of the web page to crawl.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static DEEP_L: ToolMeta = ToolMeta {
    function_name: "deepl_translate",
    description:
        "DeepL translates text into a target language using the DeepL translation service.",
    parameters: &[MetaParam {
        name: "query",
        ty: "string",
        description: "The text to translate.",
        default: Some(r#""{sys.query}""#),
        required: true,
        enum_values: &[],
        items: None,
        display_description: None,
    }],
};

static DUCK_DUCK_GO: ToolMeta = ToolMeta {
    function_name: "duckduckgo_search",
    description: "DuckDuckGo is a search engine focused on privacy. It offers search capabilities for web pages, images, and provides translation services. DuckDuckGo also features a private AI chat interface, providing users with an AI assistant that prioritizes data protection.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with DuckDuckGo. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "channel",
            ty: "string",
            description: "default:general. The category of the search. `news` is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. `general` is for broader, more general-purpose searches that may include a wide range of sources.",
            default: Some(r#""general""#),
            required: false,
            enum_values: &["general", "news"],
            items: None,
            display_description: None,
        },
    ],
};

static EMAIL: ToolMeta = ToolMeta {
    function_name: "email",
    description: "The email is a method of electronic communication for sending and receiving information through the Internet. This tool helps users to send emails to one person or to multiple recipients with support for CC, BCC, file attachments, and markdown-to-HTML conversion.",
    parameters: &[
        MetaParam {
            name: "to_email",
            ty: "string",
            description: "The target email address.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "cc_email",
            ty: "string",
            description: "The other email addresses needs to be send to. Comma splited.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "content",
            ty: "string",
            description: "The content of the email.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "subject",
            ty: "string",
            description: "The subject/title of the email.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static EXE_SQL: ToolMeta = ToolMeta {
    function_name: "execute_sql",
    description: "This is a tool that can execute SQL.",
    parameters: &[MetaParam {
        name: "sql",
        ty: "string",
        description: "The SQL needs to be executed.",
        default: Some(r#""{sys.query}""#),
        required: true,
        enum_values: &[],
        items: None,
        display_description: None,
    }],
};

static GIT_HUB: ToolMeta = ToolMeta {
    function_name: "github_search",
    description: "GitHub repository search is a feature that enables users to find specific repositories on the GitHub platform. This search functionality allows users to locate projects, codebases, and other content hosted on GitHub based on various criteria.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with GitHub. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static GOOGLE: ToolMeta = ToolMeta {
    function_name: "google_search",
    description: "Search the world's information, including webpages, images, videos and more. Google has many special features to help you find exactly what you're looking ...",
    parameters: &[
        MetaParam {
            name: "q",
            ty: "string",
            description: "The search keywords to execute with Google. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "start",
            ty: "integer",
            description: "Parameter defines the result offset. It skips the given number of results. It's used for pagination. (e.g., 0 (default) is the first page of results, 10 is the 2nd page of results, 20 is the 3rd page of results, etc.). Google Local Results only accepts multiples of 20(e.g. 20 for the second page results, 40 for the third page results, etc.) as the `start` value.",
            default: Some(r#""0""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "num",
            ty: "integer",
            description: "Parameter defines the maximum number of results to return. (e.g., 10 (default) returns 10 results, 40 returns 40 results, and 100 returns 100 results). The use of num may introduce latency, and/or prevent the inclusion of specialized result types. It is better to omit this parameter unless it is strictly necessary to increase the number of results per page. Results are not guaranteed to have the number of results specified in num.",
            default: Some(r#""6""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static GOOGLE_SCHOLAR: ToolMeta = ToolMeta {
    function_name: "google_scholar_search",
    description: "Google Scholar provides a simple way to broadly search for scholarly literature. From one place, you can search across many disciplines and sources: articles, theses, books, abstracts and court opinions, from academic publishers, professional societies, online repositories, universities and other web sites. Google Scholar helps you find relevant work across the world of scholarly research.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keyword to execute with Google Scholar. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static KEENABLE_SEARCH: ToolMeta = ToolMeta {
    function_name: "keenable_search",
    description: "\nKeenable is a web search API built for AI agents. It returns fresh, relevant web\nresults for a query and works without an API key by default (keyless free tier).\nWhen searching:\n   - Use a focused query of the most important terms (and synonyms).\n   - Optionally restrict to a single site/domain.\n             ",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with Keenable. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "site",
            ty: "string",
            description: "default:''. Restrict results to a single domain, e.g. 'techcrunch.com'.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static PUB_MED: ToolMeta = ToolMeta {
    function_name: "pubmed_search",
    description: "\nPubMed is an openly accessible, free database which includes primarily the MEDLINE database of references and abstracts on life sciences and biomedical topics.\nIn addition to MEDLINE, PubMed provides access to:\n - older references from the print version of Index Medicus, back to 1951 and earlier\n - references to some journals before they were indexed in Index Medicus and MEDLINE, for instance Science, BMJ, and Annals of Surgery\n - very recent entries to records for an article before it is indexed with Medical Subject Headings (MeSH) and added to MEDLINE\n - a collection of books available full-text and other subsets of NLM records[4]\n - PMC citations\n - NCBI Bookshelf\n            ",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with PubMed. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static QUERIT_SEARCH: ToolMeta = ToolMeta {
    function_name: "querit_search",
    description: "Search the live web with Querit and return the complete Querit API response.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search query to execute with Querit.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "count",
            ty: "integer",
            description: "The maximum number of results to return. Defaults to 10.",
            default: Some(r#"10"#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "chunks_per_doc",
            ty: "integer",
            description: "The number of summary chunks per document. Supports values from 1 to 3.",
            default: Some(r#"3"#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "site_include",
            ty: "array",
            description: "Sites that search results must include.",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string"}"#),
            display_description: None,
        },
        MetaParam {
            name: "site_exclude",
            ty: "array",
            description: "Sites that search results must exclude.",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string"}"#),
            display_description: None,
        },
        MetaParam {
            name: "time_range",
            ty: "string",
            description: "A Querit time range such as d7, w1, m3, y1, or YYYY-MM-DDtoYYYY-MM-DD.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "country_include",
            ty: "array",
            description: "Return results associated with the specified countries.",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string"}"#),
            display_description: None,
        },
        MetaParam {
            name: "language_include",
            ty: "array",
            description: "Languages that search results must include.",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string"}"#),
            display_description: None,
        },
    ],
};

static QUERIT_CONTENTS: ToolMeta = ToolMeta {
    function_name: "querit_contents",
    description: "Crawl one or more web pages with Querit and return their contents.",
    parameters: &[
        MetaParam {
            name: "urls",
            ty: "array",
            description: "The absolute HTTP or HTTPS URLs to crawl. Supports 1 to 10 URLs.",
            default: Some(r#"[]"#),
            required: true,
            enum_values: &[],
            items: Some(r#"{"type": "string"}"#),
            display_description: None,
        },
        MetaParam {
            name: "format",
            ty: "string",
            description: "Content format: text, markdown, or html. Defaults to markdown.",
            default: Some(r#""markdown""#),
            required: false,
            enum_values: &["text", "markdown", "html"],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "crawl_timeout",
            ty: "integer",
            description: "Per-page crawl timeout in seconds. Must be between 1 and 60.",
            default: Some(r#"10"#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "extras_meta",
            ty: "boolean",
            description: "Whether to include page metadata in each result.",
            default: Some(r#"false"#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static QWEATHER: ToolMeta = ToolMeta {
    function_name: "qweather",
    description: "QWeather (和风天气) looks up the current weather, a multi-day forecast, life indices, or air quality for a location using the QWeather API.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The location to look up weather for, e.g. a city name like 'Beijing' or '北京'.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static RETRIEVAL: ToolMeta = ToolMeta {
    function_name: "search_my_dateset",
    description: "This tool can be utilized for relevant content searching in the datasets.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The keywords to search the dataset. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static SEAR_XNG: ToolMeta = ToolMeta {
    function_name: "searxng_search",
    description: "SearXNG is a privacy-focused metasearch engine that aggregates results from multiple search engines without tracking users. It provides comprehensive web search capabilities.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with SearXNG. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "searxng_url",
            ty: "string",
            description: "The base URL of your SearXNG instance (e.g., http://localhost:4000). This is required to connect to your SearXNG server.",
            default: Some(r#""""#),
            required: false,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static TAVILY_SEARCH: ToolMeta = ToolMeta {
    function_name: "tavily_search",
    description: "\nTavily is a search engine optimized for LLMs, aimed at efficient, quick and persistent search results.\nWhen searching:\n   - Start with specific query which should focus on just a single aspect.\n   - Number of keywords in query should be less than 5.\n   - Broaden search terms if needed\n   - Cross-reference information from multiple sources\n             ",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keywords to execute with Tavily. The keywords should be the most important words/terms(includes synonyms) from the original request.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "topic",
            ty: "string",
            description: "default:general. The category of the search.news is useful for retrieving real-time updates, particularly about politics, sports, and major current events covered by mainstream media sources. general is for broader, more general-purpose searches that may include a wide range of sources.",
            default: Some(r#""general""#),
            required: false,
            enum_values: &["general", "news"],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "include_domains",
            ty: "array",
            description: "default:[]. A list of domains only from which the search results can be included.",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string", "description": "Domain name that must be included, e.g. www.yahoo.com"}"#),
            display_description: None,
        },
        MetaParam {
            name: "exclude_domains",
            ty: "array",
            description: "default:[]. A list of domains from which the search results can not be included",
            default: Some(r#"[]"#),
            required: false,
            enum_values: &[],
            items: Some(r#"{"type": "string", "description": "Domain name that must be excluded, e.g. www.yahoo.com"}"#),
            display_description: None,
        },
    ],
};

static TAVILY_EXTRACT: ToolMeta = ToolMeta {
    function_name: "tavily_extract",
    description: "Extract web page content from one or more specified URLs using Tavily Extract.",
    parameters: &[
        MetaParam {
            name: "urls",
            ty: "array",
            description: "The URLs to extract content from.",
            default: Some(r#""""#),
            required: true,
            enum_values: &[],
            items: Some(r#"{"type": "string", "description": "The URL to extract content from, e.g. www.yahoo.com"}"#),
            display_description: None,
        },
        MetaParam {
            name: "extract_depth",
            ty: "string",
            description: "The depth of the extraction process. advanced extraction retrieves more data, including tables and embedded content, with higher success but may increase latency.basic extraction costs 1 credit per 5 successful URL extractions, while advanced extraction costs 2 credits per 5 successful URL extractions.",
            default: Some(r#""basic""#),
            required: false,
            enum_values: &["basic", "advanced"],
            items: None,
            display_description: None,
        },
        MetaParam {
            name: "format",
            ty: "string",
            description: "The format of the extracted web page content. markdown returns content in markdown format. text returns plain text and may increase latency.",
            default: Some(r#""markdown""#),
            required: false,
            enum_values: &["markdown", "text"],
            items: None,
            display_description: None,
        },
    ],
};

static WEN_CAI: ToolMeta = ToolMeta {
    function_name: "iwencai",
    description: "\niwencai search: search platform is committed to providing hundreds of millions of investors with the most timely, accurate and comprehensive information, covering news, announcements, research reports, blogs, forums, Weibo, characters, etc.\nrobo-advisor intelligent stock selection platform: through AI technology, is committed to providing investors with intelligent stock selection, quantitative investment, main force tracking, value investment, technical analysis and other types of stock selection technologies.\nfund selection platform: through AI technology, is committed to providing excellent fund, value investment, quantitative analysis and other fund selection technologies for foundation citizens.\n",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The question/conditions to select stocks.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static WIKIPEDIA: ToolMeta = ToolMeta {
    function_name: "wikipedia_search",
    description: "A wide range of how-to and information pages are made available in wikipedia. Since 2001, it has grown rapidly to become the world's largest reference website. From Wikipedia, the free encyclopedia.",
    parameters: &[
        MetaParam {
            name: "query",
            ty: "string",
            description: "The search keyword to execute with wikipedia. The keyword MUST be a specific subject that can match the title.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

static YAHOO_FINANCE: ToolMeta = ToolMeta {
    function_name: "yahoo_finance",
    description: "The Yahoo Finance is a service that provides access to real-time and historical stock market data. It enables users to fetch various types of stock information, such as price quotes, historical prices, company profiles, and financial news. The API offers structured data, allowing developers to integrate market data into their applications and analysis tools.",
    parameters: &[
        MetaParam {
            name: "stock_code",
            ty: "string",
            description: "The stock code or company name.",
            default: Some(r#""{sys.query}""#),
            required: true,
            enum_values: &[],
            items: None,
            display_description: None,
        },
    ],
};

#[cfg(test)]
mod tests {
    use super::super::defaults::param_defaults;
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_tool_but_jin10_and_tushare_has_a_meta() {
        for kind in Kind::ALL.iter().copied() {
            let expected = kind == Kind::Agent
                || (kind.is_tool() && !matches!(kind, Kind::Jin10 | Kind::TuShare));
            assert_eq!(tool_meta(kind).is_some(), expected, "{kind}");
        }
    }

    /// The typed metadata and the `meta` attribute in the defaults describe the same object.
    #[test]
    fn meta_matches_the_meta_default() {
        for kind in Kind::ALL.iter().copied() {
            let Some(meta) = tool_meta(kind) else {
                continue;
            };
            let text = param_defaults(kind)
                .iter()
                .find(|(n, _)| *n == "meta")
                .map(|(_, v)| *v)
                .expect("tool defaults carry meta");
            let json: Value = serde_json::from_str(text).expect("meta is JSON");
            assert_eq!(json["name"], meta.function_name, "{kind}");
            assert_eq!(json["description"], meta.description, "{kind}");
            let params = json["parameters"].as_object().expect("parameters object");
            let names: Vec<&str> = params.keys().map(String::as_str).collect();
            let ours: Vec<&str> = meta.parameters.iter().map(|p| p.name).collect();
            assert_eq!(names, ours, "{kind}");
            for p in meta.parameters {
                let j = &params[p.name];
                assert_eq!(j["type"], p.ty, "{kind}.{}", p.name);
                assert_eq!(j["description"], p.description, "{kind}.{}", p.name);
                assert_eq!(j["required"], p.required, "{kind}.{}", p.name);
                let default = p
                    .default
                    .map(|d| serde_json::from_str::<Value>(d).expect("json"));
                assert_eq!(j.get("default").cloned(), default, "{kind}.{}", p.name);
                let items = p
                    .items
                    .map(|d| serde_json::from_str::<Value>(d).expect("json"));
                assert_eq!(j.get("items").cloned(), items, "{kind}.{}", p.name);
                let enums: Vec<Value> = p.enum_values.iter().map(|e| Value::from(*e)).collect();
                let want = j
                    .get("enum")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                assert_eq!(enums, want, "{kind}.{}", p.name);
            }
        }
    }

    #[test]
    fn agent_schema_and_spot_checks() {
        let agent = tool_meta(Kind::Agent).expect("agent meta");
        assert_eq!(agent.function_name, "agent");
        assert_eq!(agent.description, "This is an agent for a specific task.");
        let names: Vec<&str> = agent.parameters.iter().map(|p| p.name).collect();
        assert_eq!(names, ["user_prompt", "reasoning", "context"]);
        assert!(agent.parameters.iter().all(|p| p.required));
        assert_eq!(agent.parameters[0].default, Some("\"\""));
        assert_eq!(
            tool_meta(Kind::Retrieval).map(|m| m.function_name),
            Some("search_my_dateset")
        );
        assert_eq!(
            tool_meta(Kind::CodeExec).map(|m| m.function_name),
            Some("execute_code")
        );
        let qweather = tool_meta(Kind::QWeather).expect("qweather");
        assert!(qweather.description.contains("(和风天气)"));
        let code = tool_meta(Kind::CodeExec).expect("code");
        assert!(code.description.starts_with("\nThis tool has a sandbox"));
        assert!(code
            .description
            .contains("    \"\"\"\n    Generate Fibonacci"));
        assert_eq!(code.parameters[0].enum_values, ["python", "javascript"]);
        assert_eq!(code.parameters[0].default, None);
    }
}
