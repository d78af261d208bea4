"""The places in the checkout that tests read, so a test module can move without changing them."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
PACKAGE = ROOT / "codex_nb"
JS = ROOT / "js"
NOTEBOOKS = ROOT / "notebooks"
README = ROOT / "README.md"
FIXTURES = TESTS / "fixtures"
ACP_AGENTS = TESTS / "acp_agents"
MCP_SERVERS = TESTS / "mcp_servers"
CODEX_0169_TOOLS = FIXTURES / "codex_0169" / "mcp_and_tools.json"
