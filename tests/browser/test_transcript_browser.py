"""The transcript in a real JupyterLab: a real model stream (the local Responses server in
the kernel) shows a tool call with its output, then assistant text while it is still
streaming; Stop ends the turn and the transcript says so. Every wait is an expect."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

CELL = """\
import codex_nb as cx
from codex_nb.testing import Events, ResponsesServer

plan = {"plan": [{"step": "Stream an answer", "status": "in_progress"}]}
half = [{"type": "response.created", "response": {"id": "r2"}}] + [
    {"type": "response.output_text.delta", "item_id": "m1", "delta": d} for d in ("Half ", "way ", "there")]
srv = ResponsesServer([[cx.function_call("update_plan", plan, call_id="c1")], Events(half, hold_after=len(half))]).start()
session = cx.Session()
display(cx.Transcript(session), cx.TurnControls(session))
handle = session.start_turn("stream please", model=cx.ResponsesModel(model="local", base_url=srv.base_url))
"""


def test_transcript_streams_text_and_shows_tool_calls(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "transcript_lab.ipynb", [CELL])
    notebook.run_all()

    header = page.locator(".cx-transcript-header")
    expect(header).to_have_text("Transcript: running", timeout=60_000)
    tool = page.locator(".cx-kind-tool")
    expect(tool.locator(".cx-transcript-label")).to_have_text("update_plan · completed")
    expect(tool.locator(".cx-transcript-text")).to_have_text("Plan updated")
    assistant = page.locator(".cx-kind-assistant")
    expect(assistant.locator(".cx-transcript-text")).to_have_text("Half way there")  # still streaming
    expect(assistant).to_have_attribute("data-live", "true")
    notebook.screenshot("transcript_streaming.png")

    page.locator("button.cx-stop").click()
    expect(header).to_have_text("Transcript: interrupted")
    expect(assistant).to_have_attribute("data-live", "false")
    notebook.screenshot("transcript_interrupted.png")


LONG_TURN = """\
import codex_nb as cx
from codex_nb.testing import ResponsesServer

session = cx.Session()

@session.tool
def work(n: int) -> str:
    "Do one small piece of work."
    return f"piece {n} done"

calls = [cx.function_call("work", {"n": i}, call_id=f"w{i}") for i in range(1000)]
view = cx.Transcript(session, rows=100)
display(view)
async with ResponsesServer([calls, [cx.assistant_message("All done.")]]) as srv:
    result = await session.run_turn("a long turn", model=cx.ResponsesModel(model="local", base_url=srv.base_url))
print(result.status, len(view.state.entries), view.earlier, view.flushes < 200)
"""


def test_a_thousand_tool_calls_keep_the_page_small(page: Any, jupyter_server: JupyterServer) -> None:
    """The kernel sends the newest rows only: the page holds a hundred rows and one folded line."""
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "transcript_long.ipynb", [LONG_TURN])
    notebook.run_all()
    expect(page.locator(".jp-OutputArea-output pre").last).to_have_text("completed 1002 902 True", timeout=120_000)
    transcript = page.locator(".cx-transcript")
    expect(transcript.locator(".cx-transcript-header")).to_have_text("Transcript: completed")
    expect(transcript.locator(".cx-transcript-folded")).to_have_text("902 earlier entries of this turn not shown")
    expect(transcript.locator(".cx-transcript-row")).to_have_count(100)
    expect(transcript.locator(".cx-kind-assistant .cx-transcript-text")).to_have_text("All done.")
    assert transcript.evaluate("el => el.querySelectorAll('*').length") < 600  # 100 rows of 4 nodes, plus the frame
