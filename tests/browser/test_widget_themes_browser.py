"""The prompts widget, the turn controls and the checklist in a real JupyterLab, in the light AND
the dark theme: theme colours with readable contrast (error and usage text >= 4.5:1), a running
indicator, styled controls, accessible names, and no leftover highlight after an interrupt."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

CELL = """\
import asyncio
import codex_nb as cx

session = cx.Session(cx.Config(default_mode_request_user_input=True))
prompts = cx.PromptsWidget(session)
controls = cx.TurnControls(session)
checklist = cx.PlanChecklist(session)
loop = asyncio.get_running_loop()
never = asyncio.Event()
injected = []

@session.tool
async def hang() -> str:
    "Waits until the turn is stopped."
    await never.wait()
    return "unreachable"

def inject():  # an answer the kernel rejects, once the question is on screen
    if session.frontend_requests.pending and not injected:
        injected.append(True)
        prompts.receive({"id": "req-404", "kind": "answer_user_input", "answers": {}})

session.frontend_requests.add_listener(lambda: loop.call_soon_threadsafe(inject))
question = {"id": "confirm", "header": "Confirm", "question": "Proceed with the plan?",
            "options": [{"label": "Yes (Recommended)", "description": "Continue."},
                        {"label": "No", "description": "Stop here."}]}
model = cx.ScriptedModel([[
    cx.function_call("update_plan", {"plan": [{"step": "Ask first", "status": "in_progress"}]}, call_id="p"),
    cx.function_call("request_user_input", {"questions": [question]}, call_id="q"),
    cx.function_call("hang", {}, call_id="h"),
]], usage=[{"total_tokens": 1200}])
model.model_context_window = 10_000
display(controls, checklist, prompts)
handle = session.start_turn("ask", model=model)
"""

CONTRAST = """(el) => {
  const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return m.length > 3 ? m : [...m, 1]; };
  let bg = null;
  for (let node = el; node; node = node.parentElement) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c[3] > 0) { bg = c; break; }
  }
  bg = bg || [255, 255, 255, 1];
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const fg = rgb(getComputedStyle(el).color);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


def check_theme(page: Any, theme: str) -> None:
    from playwright.sync_api import expect

    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    light = "true" if theme == "JupyterLab Light" else "false"
    page.wait_for_function("(v) => document.body.dataset.jpThemeLight === v", arg=light)
    error = page.locator(".cx-prompts-error")
    expect(error).to_contain_text("unknown request id 'req-404'")
    assert error.evaluate(CONTRAST) >= 4.5, theme
    stop = page.locator("button.cx-stop")
    expected_red = page.evaluate("() => getComputedStyle(document.body).getPropertyValue('--jp-error-color1').trim()")
    assert expected_red, theme
    assert stop.evaluate("(b) => getComputedStyle(b).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert stop.evaluate(CONTRAST) >= 3.0, theme  # large-enough UI text on the theme's error red
    dot = page.locator(".cx-turn-controls[data-status='running'] .cx-turn-dot")
    assert dot.evaluate("(d) => getComputedStyle(d).animationName") == "cx-turn-pulse"
    submit = page.locator("button.cx-submit")
    brand = submit.evaluate("(b) => getComputedStyle(b).backgroundColor")
    assert brand not in ("rgba(0, 0, 0, 0)", "rgb(239, 239, 239)"), theme  # not the browser's default button
    for text in (".cx-q-text", ".cx-option-label", ".cx-waiting", ".cx-usage-text"):
        assert page.locator(text).first.evaluate(CONTRAST) >= 4.5, (theme, text)


def test_widgets_follow_both_themes_and_stay_accessible(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "themes_lab.ipynb", [CELL])
    notebook.run_all()

    expect(page.locator(".cx-turn-status")).to_have_text("Turn: running", timeout=60_000)
    card = page.locator("form.cx-question")
    expect(card.locator(".cx-prompt-title")).to_have_text("The model asks")  # the header is the legend only
    # a Default-mode question: Codex 0.169 sends it with isBlocking=false, and the card says so
    expect(card.get_by_role("status")).to_have_text(
        "Not blocking: the model could go on without it, but waits for your answer."
    )
    expect(page.get_by_role("form", name="The model asks")).to_be_visible()
    expect(page.get_by_role("radio", name="Yes (Recommended)")).to_be_visible()
    expect(page.get_by_role("textbox", name="Confirm: other answer or note")).to_be_visible()
    expect(page.get_by_role("button", name="Stop the running turn")).to_be_enabled()
    expect(page.locator(".cx-turn-controls")).to_have_attribute("aria-busy", "true")
    expect(page.locator(".cx-usage-text")).to_have_text(
        "Context: 1,200 of 10,000 tokens (12%) \u00b7 This turn: 1,200 \u00b7 In all: 1,200"
    )
    expect(page.get_by_role("meter", name="Context window used")).to_have_attribute("value", "1200")

    check_theme(page, "JupyterLab Light")
    notebook.screenshot("widgets_light.png")
    check_theme(page, "JupyterLab Dark")
    notebook.screenshot("widgets_dark.png")

    # keyboard: Tab reaches the radio, Space picks it, Enter in the note submits the form
    page.get_by_role("radio", name="Yes (Recommended)").focus()
    page.keyboard.press("Space")
    page.get_by_role("textbox", name="Confirm: other answer or note").focus()
    page.keyboard.press("Enter")
    expect(card).to_have_count(0)
    expect(page.locator(".cx-prompts-error")).to_be_hidden()

    page.get_by_role("button", name="Stop the running turn").click()
    expect(page.locator(".cx-turn-status")).to_have_text("Turn: interrupted")
    step = page.locator(".codex-plan-step--in_progress")
    expect(step).to_have_css("font-weight", "400")  # no longer highlighted as running
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")
