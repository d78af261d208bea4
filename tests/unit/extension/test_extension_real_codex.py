"""`%%codex --source VAR` on the real Codex: a `cx.app_server.CodexThread` (the pinned codex app-server against a
local scripted Responses server) runs the cell's turn; the cell's widgets follow it, and a
`--model` is refused because the real Codex brings its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension

from helpers.app_server_helpers import plan_call, real_codex


# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


@pytest.mark.requires_codex
async def test_codex_cell_on_a_real_codex_thread(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [
        [plan_call([("read", "in_progress"), ("write", "pending")], call_id="p1")],
        [plan_call([("read", "completed"), ("write", "completed")], call_id="p2")],
        [cx.assistant_message("finished for real")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        shell.user_ns["thread"] = await server.start_thread(cwd=tmp_path)
        shell.user_ns["m"] = [[cx.assistant_message("x")]]
        with pytest.raises(UsageError, match=r"^--model m: thread \(CodexThread\) brings its own model"):
            shell.run_cell_magic("codex", "--source thread --model m", "No.")
        shell.run_cell_magic("codex", "--source thread --out turn", "Plan and do it.")
        state = extension.agent(shell)
        assert state is not None
        view = state.widgets[-1]
        (running,) = state.turns
        result = await shell.user_ns["turn"]
        await running.task
        await view.checklist.settled()
        assert result.status == "completed"
        assert view.outcome.value == "Turn completed: finished for real"
        assert [s["status"] for s in view.checklist.steps] == ["completed", "completed"]
        assert view.controls.status == "completed"
        assert "finished for real" in view.transcript.text()
        assert len(srv.requests) == 3
    capsys.readouterr()
