//! Serves the fixture MCP tools on 127.0.0.1 until killed (`tests/golden/regen.py` runs it for
//! the oracle).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let _server = canvasc_tests::mcp_server::start().await?;
    eprintln!(
        "MCP fixture server on http://127.0.0.1:{}/mcp and /sse",
        canvasc_tests::mcp_server::PORT
    );
    std::future::pending::<()>().await;
    Ok(())
}
