"""The ACP server's old name, ``codex_nb.acp``, still imports and serves for one release, with a
DeprecationWarning naming ``codex_nb.acp_server`` (a real subprocess each time: the warning is
raised once per interpreter, at import)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import acp
import pytest

import codex_nb as cx

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


MESSAGE = "codex_nb.acp is deprecated; use codex_nb.acp_server (python -m codex_nb.acp_server)"


def python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False, timeout=120)


def test_importing_the_old_name_warns_and_gives_the_same_objects() -> None:
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    import codex_nb.acp as old\n"
        "    from codex_nb.acp.server import CodexNbAgent\n"
        "import codex_nb.acp_server as new\n"
        "assert old.serve is new.serve and old.CodexNbAgent is new.CodexNbAgent is CodexNbAgent\n"
        "print([(w.category.__name__, str(w.message)) for w in seen])\n"
    )
    out = python("-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == repr([("DeprecationWarning", MESSAGE)])


def test_python_m_the_old_name_warns_on_stderr_by_default() -> None:
    out = python("-m", "codex_nb.acp", "--help")
    assert out.returncode == 0, out.stderr
    assert "--script" in out.stdout
    assert f"DeprecationWarning: {MESSAGE}" in out.stderr


class Quiet:
    async def session_update(self, session_id: str, update: object, **_: object) -> None:
        pass


async def test_python_m_the_old_name_still_serves(tmp_path: Path) -> None:
    script = tmp_path / "responses.json"
    script.write_text(json.dumps([[cx.assistant_message("Still here.")]]))
    async with acp.spawn_agent_process(Quiet(), sys.executable, "-m", "codex_nb.acp", "--script", str(script)) as (
        conn,
        _process,
    ):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Hi")])
    assert response.stop_reason == "end_turn"
