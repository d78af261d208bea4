"""`%%codex --source VAR` on the real Codex: a `cx.app_server.CodexThread` (the pinned codex app-server against a
local scripted Responses server) runs the cell's turn; the cell's widgets follow it, and a
`--model` is refused because the real Codex brings its own."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image
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


@pytest.mark.requires_codex
async def test_cells_sent_to_the_agent_reach_a_real_codex_thread_with_their_image(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Send to agent's cells go to the real Codex as its input: the text, and a cell's PNG output as
    an input image (the page's half: tests/browser/test_send_cells_browser.py)."""
    image = io.BytesIO()
    Image.new("RGB", (8, 4), "steelblue").save(image, format="PNG")  # Codex decodes what it sends
    png = base64.b64encode(image.getvalue()).decode()
    plot = {
        "index": 0,
        "id": "c0",
        "cell_type": "code",
        "source": "chart",
        "execution_count": 7,
        "outputs": [
            {"output_type": "display_data", "data": {"image/png": png, "text/plain": "<Image>"}, "metadata": {}}
        ],
    }
    async with real_codex([[cx.assistant_message("seen")]], tmp_path / "home") as (server, srv):
        shell.user_ns["thread"] = await server.start_thread(cwd=tmp_path)
        state = extension.agent(shell)
        assert state is not None
        state.attach_cells([plot])
        shell.run_cell_magic("codex", "--source thread --out turn", "What does it show?")
        assert (await shell.user_ns["turn"]).status == "completed"
        assert state.pending_cells == []
        (user,) = [i for i in srv.requests[0]["input"] if i.get("role") == "user" and "Context" in str(i)]
        parts = user["content"]
        assert parts[0]["type"] == "input_text" and "[notebook cell 1 (In [7])]\nchart" in parts[0]["text"]
        assert "[image of the output of notebook cell 1 (In [7])] (attached as an image)" in parts[0]["text"]
        assert [p["image_url"] for p in parts if p["type"] == "input_image"] == [f"data:image/png;base64,{png}"]
    capsys.readouterr()


@pytest.mark.requires_codex
async def test_codex_goal_cell_follows_the_goal_to_its_end(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [
        [cx.assistant_message("working on it")],
        [cx.function_call("update_goal", {"status": "complete"}, call_id="g1")],
        [cx.assistant_message("all done")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        shell.user_ns["thread"] = await server.start_thread(cwd=tmp_path)
        shell.user_ns["session"] = cx.Session()
        with pytest.raises(UsageError, match=r"^--budget is a goal's token budget: give it with --goal"):
            shell.run_cell_magic("codex", "--source thread --budget 5", "x")
        with pytest.raises(UsageError, match=r"^--goal takes the objective only: drop --vars"):
            shell.run_cell_magic("codex", "--source thread --goal --vars a", "x")
        with pytest.raises(UsageError, match=r"^--goal: session \(Session\) has no goals"):
            shell.run_cell_magic("codex", "--source session --goal", "x")
        shell.run_cell_magic("codex", "--source thread --goal --budget 900000 --out run", "Finish the job.")
        state = extension.agent(shell)
        assert state is not None
        view = state.widgets[-1]
        result = await shell.user_ns["run"]
        await view.checklist.settled()
        assert result.status == "complete" and len(result.turns) == 2
        assert view.outcome.value == "Goal complete after 2 turns"
        assert view.controls.goal["status"] == "complete"
        assert view.controls.text().startswith("Goal (complete): Finish the job.\n")
        assert state.turns == []
    capsys.readouterr()


@pytest.mark.requires_codex
async def test_a_goal_cell_on_a_thread_in_plan_mode_is_refused_in_the_cell(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with real_codex([[cx.assistant_message("planned")]], tmp_path / "home") as (server, _srv):
        thread = shell.user_ns["thread"] = await server.start_thread(cwd=tmp_path)
        assert (await thread.run_turn("plan it", mode="plan")).status == "completed"
        with pytest.raises(UsageError, match=r"^--goal: thread is in Plan mode .* Run a %%codex turn without"):
            shell.run_cell_magic("codex", "--source thread --goal", "Finish the job.")
        assert thread.goal is None  # nothing was set
    capsys.readouterr()
