#!/usr/bin/env python3
"""The oracle's run_canvas with RAGFlow's real MCP client, for cases that call MCP servers.

The oracle stubs the `mcp` SDK and the MCP server table. This driver lets RAGFlow's own
`common/mcp_tool_call_conn.py` use the real SDK (`pip install mcp==1.28.1` into the oracle's
venv: the version RAGFlow's uv.lock pins) and answers `MCPServerService.get_by_id` from the
records in $CANVASC_MCP_SERVERS (the case's `mcp_servers`, JSON: id -> {url, server_type,
headers, variables}). Run from the oracle folder with run_canvas's arguments.

This script contains no RAGFlow code.
"""

import json
import os
import sys
from types import SimpleNamespace

sys.path.insert(0, os.getcwd())
from ragflow_ref import bootstrap  # noqa: E402

for name in [k for k in bootstrap.STUB_MODULES if k == "mcp" or k.startswith("mcp.")]:
    del bootstrap.STUB_MODULES[name]
bootstrap.install()

import api.db.services.mcp_server_service as mcp_service  # noqa: E402

RECORDS = json.loads(os.environ.get("CANVASC_MCP_SERVERS") or "{}")


def get_by_id(mcp_id):
    r = RECORDS.get(mcp_id)
    if r is None:
        return False, None
    return True, SimpleNamespace(id=mcp_id, url=r["url"], server_type=r["server_type"],
                                 headers=r.get("headers") or {}, variables=r.get("variables") or {})


mcp_service.MCPServerService.get_by_id = staticmethod(get_by_id)

from ragflow_ref import run_canvas  # noqa: E402

code = run_canvas.main()
sys.stdout.flush()
# RAGFlow's MCP sessions run event loops on worker threads that never end on their own.
from common.mcp_tool_call_conn import shutdown_all_mcp_sessions  # noqa: E402

shutdown_all_mcp_sessions()
sys.stdout.flush()
os._exit(code or 0)
