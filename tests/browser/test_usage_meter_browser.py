"""The usage meter of the turn controls in a real JupyterLab and Notebook 7, fed by the REAL Codex.

Codex (``codex app-server``, the pinned version) samples from the local Responses server, whose
``response.completed`` reports the usage scripted here; its ``thread/tokenUsage/updated`` becomes
codex_nb's ``token_count`` and the meter in the browser shows the tokens in the context window,
this turn's and the thread's. No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import os, tempfile
import codex_nb as cx
from codex_nb.testing import ResponsesServer
from codex_nb.testing.responses_server import Events

def answered(item, rid, input_tokens, output_tokens):
    usage = {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": input_tokens + output_tokens}
    return Events([
        {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": rid, "status": "completed", "usage": usage}},
    ])

plan = cx.function_call("update_plan", {"plan": [{"step": "Count", "status": "completed"}]})
srv = ResponsesServer([answered(plan, "r1", 1000, 50), answered(cx.assistant_message("Counted."), "r2", 1200, 30)]).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}})
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=tempfile.gettempdir())
controls = cx.TurnControls(thread)
display(controls)
"""

TURN = """\
result = await thread.start_turn("Count the tokens")
print("fallback:", controls.text().splitlines()[-1])
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_meter_shows_the_real_codexs_usage(ui: str, page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"usage_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()
    controls = page.locator(".cx-turn-controls")
    expect(controls.locator(".cx-turn-status")).to_have_text("Turn: completed", timeout=120_000)
    words = re.compile(r"Context: 1,230 of [\d,]+ tokens \(\d+%\) \u00b7 This turn: 2,280 \u00b7 In all: 2,280")
    expect(controls.locator(".cx-usage-text")).to_have_text(words)
    meter = controls.locator("meter.cx-usage-meter")
    expect(meter).to_be_visible()
    expect(meter).to_have_attribute("value", "1230")
    # the saved fallback says the same as the view
    expect(page.get_by_text(re.compile(r"fallback: Context: 1,230 of .* In all: 2,280"))).to_be_visible()
    notebook.screenshot(f"usage_meter_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []


PANEL_SETUP = """\
import codex_nb as cx
%load_ext codex_nb
window = cx.ScriptedModel(
    [[cx.function_call("update_plan", {"plan": [{"step": "Count", "status": "completed"}]}, call_id="p")],
     [cx.assistant_message("Counted.")]],
    usage=[{"total_tokens": 1200}, {"total_tokens": 1500}],
)
window.model_context_window = 10_000  # what a cx.ResponsesModel reads from config.toml
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_side_panel_and_the_turn_view_show_codex_nbs_own_usage(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    cells = [PANEL_SETUP, "%codex_plan --panel", "%%codex --model window\nCount the tokens."]
    notebook = open_notebook(page, jupyter_server, f"usage_panel_{ui}.ipynb", cells, ui=ui)
    notebook.run_all()
    where = "#jp-right-stack .jupyterlab-sidecar .cx-plan-panel" if ui == "lab" else ".jp-Cell .cx-plan-panel"
    panel = page.locator(where)
    words = "Context: 1,500 of 10,000 tokens (15%) \u00b7 This turn: 2,700 \u00b7 In all: 2,700"
    expect(panel.locator(".cx-turn-status")).to_have_text("Turn: completed", timeout=60_000)
    expect(panel.locator(".cx-usage-text")).to_have_text(words)
    turn_view = page.locator(".jp-Notebook .jp-Cell").last.locator(".cx-turn-view")
    expect(turn_view.locator(".cx-usage-text")).to_have_text(words)
    expect(turn_view.locator("meter.cx-usage-meter")).to_have_attribute("value", "1500")
    notebook.screenshot(f"usage_panel_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
