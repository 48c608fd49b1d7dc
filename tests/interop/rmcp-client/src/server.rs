//! A stdio MCP server on the OFFICIAL Rust MCP SDK (`rmcp` 3.11.0), for probing our
//! client role (`tests/interop/sdk_servers/run.sh` runs `picomcp-probe` against it).
//!
//! ```text
//! rmcp-interop-server          # speaks MCP on stdin/stdout; log lines go to stderr
//! rmcp-interop-server --http 127.0.0.1:PORT [--stateless] [--json]
//!                              # Streamable HTTP at /mcp (rmcp's StreamableHttpService on
//!                              # axum): sessions unless --stateless, SSE answers unless
//!                              # --json (rmcp honours it only when stateless); until SIGTERM
//! ```
//!
//! The same features as the Python and TypeScript SDK servers in
//! `tests/interop/sdk_servers/`:
//! * tools `echo` (text -> the same text) and `add` (a + b, structured output `{sum}`;
//!   it reports progress when the request carries a progress token, and logs one
//!   message),
//! * a static resource `test://static-text` (text/plain) and a resource template
//!   `test://greeting/{name}`,
//! * a prompt `greet` with a required argument `name`,
//! * the `logging` capability (`logging/setLevel` is accepted),
//! * only with `RMCP_INTEROP_LISTEN=1`: `listChanged` for tools, resources and prompts,
//!   and `subscriptions/listen` (2026-07-28) accepting those (nothing ever changes).
//!   `tests/interop/sdk_servers/run.sh` sets it. rmcp 3.11.0 then often lingers 5 s
//!   after stdin EOF (its drain timeout) when the EOF comes right after the
//!   `notifications/cancelled` that ends the listen stream; see tests/interop/README.md.
//!
//! rmcp's defaults decide the revisions: `server/discover` (2026-07-28) and `initialize`
//! for every legacy revision rmcp knows.

// rmcp marks the logging API deprecated (SEP-2577 drops it in 2026-07-28); the legacy
// revisions still have it, and the probe exercises it there.
#![allow(deprecated)]

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{
    Implementation, ListResourceTemplatesResult, ListResourcesResult, LoggingLevel,
    LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    RequestMetaObject, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, SubscriptionFilter,
};
use rmcp::service::RequestContext;
use rmcp::{
    prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router, ErrorData, Peer,
    RoleServer, ServerHandler, ServiceExt,
};

const STATIC_URI: &str = "test://static-text";
const STATIC_TEXT: &str = "This is a static text resource.\n";
const GREETING_PREFIX: &str = "test://greeting/";

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// the text to echo back
    text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// whom to greet
    name: String,
}

#[derive(Debug, Clone)]
struct InteropServer {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
    /// `RMCP_INTEROP_LISTEN=1`: declare `listChanged` and serve `subscriptions/listen`.
    listen: bool,
}

#[tool_router(router = tool_router)]
impl InteropServer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
            listen: std::env::var_os("RMCP_INTEROP_LISTEN").is_some_and(|v| v == "1"),
        }
    }

    #[tool(description = "Echo the text back.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Add two numbers.")]
    async fn add(
        &self,
        Parameters(AddArgs { a, b }): Parameters<AddArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<Json<Sum>, ErrorData> {
        let token = meta.get_progress_token();
        let progress = |n: f64, message: &str| {
            token.clone().map(|t| {
                ProgressNotificationParam::new(t, n)
                    .with_total(2.0)
                    .with_message(message)
            })
        };
        if let Some(p) = progress(1.0, "adding") {
            let _ = peer.notify_progress(p).await;
        }
        let mut log = LoggingMessageNotificationParam::new(
            LoggingLevel::Info,
            serde_json::Value::String(format!("add({a}, {b})")),
        );
        log.logger = Some("add".into());
        let _ = peer.notify_logging_message(log).await;
        if let Some(p) = progress(2.0, "done") {
            let _ = peer.notify_progress(p).await;
        }
        Ok(Json(Sum { sum: a + b }))
    }
}

#[prompt_router]
impl InteropServer {
    #[prompt(name = "greet", description = "Ask for a greeting to NAME.")]
    async fn greet(
        &self,
        Parameters(GreetArgs { name }): Parameters<GreetArgs>,
    ) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Please write a short greeting to {name}."),
        )]
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for InteropServer {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .enable_logging()
            .build();
        if self.listen {
            caps = ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_logging()
                .build();
        }
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("picomcp-interop-rmcp", "0.1.0"))
    }

    /// 2026-07-28 `subscriptions/listen`: accept whatever the client asks for and the
    /// capabilities announce (the SDK's default `listen` then waits for the cancel).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.listen
            .then(|| requested.supported_by(&self.get_info().capabilities))
    }

    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            STATIC_URI,
            "static-text",
        )
        .with_description("A fixed text.")
        .with_mime_type("text/plain")]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("test://greeting/{name}", "greeting")
                .with_description("A greeting for NAME.")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let text = if uri == STATIC_URI {
            STATIC_TEXT.to_string()
        } else if let Some(name) = uri.strip_prefix(GREETING_PREFIX).filter(|n| !n.is_empty()) {
            format!("Hello, {name}!")
        } else {
            return Err(ErrorData::resource_not_found(
                format!("unknown resource {uri}"),
                None,
            ));
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// Serves Streamable HTTP on `addr` until SIGTERM or SIGINT.
async fn serve_http(
    addr: &str,
    stateless: bool,
    json: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    let ct = tokio_util::sync::CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(ct.child_token())
        .with_legacy_session_mode(!stateless)
        .with_json_response(json);
    let service: StreamableHttpService<InteropServer, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(InteropServer::new()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("rmcp-interop-server: Streamable HTTP on http://{addr}/mcp");
    let shutdown = async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        ct.cancel();
    };
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await?;
    Ok(())
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = args.iter().position(|a| a == "--http").and_then(|i| args.get(i + 1).cloned());
    let flag = |f: &str| args.iter().any(|a| a == f);
    let served = rt.block_on(async {
        if let Some(addr) = http {
            return serve_http(&addr, flag("--stateless"), flag("--json")).await;
        }
        let service = InteropServer::new().serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    });
    if let Err(e) = served {
        eprintln!("rmcp-interop-server: {e}");
        std::process::exit(1);
    }
    // tokio's stdin reader may sit in a blocking read: do not wait for it.
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
}
