"""``async with Session()`` / ``aclose()`` end what the session started, Code Mode included."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


def test_aclose_terminates_code_mode_cells_and_stops_the_v8_host_thread() -> None:
    # A fresh interpreter: in this test process other sessions still share the host thread.
    script = textwrap.dedent("""
        import asyncio, threading
        import codex_nb as cx
        from codex_nb.config import CodeModeSettings

        async def main():
            config = cx.Config(code_mode=CodeModeSettings(enabled=True))
            async with cx.Session(config=config) as session:
                res = await session.call_tool("exec", "// @exec: {\\"yield_time_ms\\": 0}\\nawait new Promise(() => {})")
                running = session.code_mode.runtime(config.code_mode).active_cell_ids
                hosts = [t.name for t in threading.enumerate() if t.name == "codex-nb-v8"]
            left = [t.name for t in threading.enumerate() if t.name == "codex-nb-v8"]
            print(res.result.output.extra["cell_status"], len(running), hosts, left, session.closed)

        asyncio.run(main())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert out.stdout.strip() == "running 1 ['codex-nb-v8'] [] True", out.stderr
