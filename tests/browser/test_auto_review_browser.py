"""Codex's automatic review of an approval in the transcript, in a real JupyterLab and Notebook 7,
fed by the REAL Codex (the pinned ``codex app-server``, ``approvals_reviewer = "auto_review"``).

The local Responses server scripts an escalated command and answers the reviewer's own model
request with a denial, unless the input says the person approved the action. The transcript shows
the review as Codex's verdict (never as the person's answer) with the rationale; the person presses
"Override denial", confirms, and the next turn (started when the override went through) runs the
command, approved by the reviewer. No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import json, os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)
import codex_nb as cx
from codex_nb.testing import ResponsesServer

OVERRIDDEN = "The user has manually approved a specific action"
def reviewer(body):
    seen = json.dumps(body.get("input"))
    if "APPROVAL REQUEST" not in seen:
        return None
    verdict = {"outcome": "allow", "risk_level": "low", "rationale": "The person approved it."}
    if OVERRIDDEN not in seen:
        verdict = {"outcome": "deny", "risk_level": "high", "user_authorization": "low",
                   "rationale": "Nobody asked for this file."}
    return [cx.assistant_message(json.dumps(verdict))]

escalated = lambda cid: [cx.function_call("exec_command", {"cmd": "touch approved.txt",
    "sandbox_permissions": "require_escalated", "justification": "a file"}, call_id=cid)]
work = tempfile.mkdtemp(prefix="review-work-")
script = [escalated("e1"), [cx.assistant_message("Denied.")], escalated("e2"), [cx.assistant_message("Made.")]]
srv = ResponsesServer(script, allow_leftover=True, background=reviewer).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), approval_policy="on-request",
                            sandbox_mode="workspace-write", approvals_reviewer="auto_review")
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=work)

def go_on(event):  # the person's override went through: ask Codex again
    if event.msg.type == "auto_approval_review" and event.msg.overridden:
        thread.start_turn("Go ahead")

thread.subscribe(go_on)
transcript = cx.Transcript(thread)
display(transcript)
"""

TURN = """\
first = await thread.start_turn("Make the file")
print("fallback:", [line for line in transcript.text().splitlines() if line.startswith("automatic review")])
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_denied_automatic_review_is_shown_as_codexs_and_the_person_overrides_it(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"auto_review_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()
    view = page.locator(".cx-transcript")
    review = view.locator(".cx-transcript-row.cx-kind-review")
    expect(review.locator(".cx-transcript-label")).to_have_text(
        "Automatic review \u00b7 denied by the automatic review \u00b7 /bin/bash -lc 'touch approved.txt'",
        timeout=120_000,
    )
    expect(review.locator(".cx-transcript-text")).to_have_text("Nobody asked for this file.")
    expect(review.locator(".cx-transcript-detail")).to_have_text("risk high, authorization low")
    expect(
        page.get_by_text(re.compile(r"fallback: \[.automatic review \[denied by the automatic review\]"))
    ).to_be_visible()
    # the override asks first, and Cancel takes it back
    review.get_by_role("button", name="Override denial").click()
    expect(review.locator(".cx-review-confirm-text")).to_contain_text("you approved this exact action")
    review.get_by_role("button", name="Cancel").click()
    review.get_by_role("button", name="Override denial").click()
    review.get_by_role("button", name="Approve it").click()
    # the next turn runs it: its own review says the reviewer approved it
    again = view.locator(".cx-transcript-row.cx-kind-review")
    expect(again.locator(".cx-transcript-label")).to_have_text(
        re.compile(r"^Automatic review · approved by the automatic review · "), timeout=120_000
    )
    expect(again.get_by_role("button", name="Override denial")).to_have_count(0)
    expect(view.locator(".cx-transcript-row.cx-kind-assistant")).to_have_text([re.compile(r"Made\.$")], timeout=120_000)
    expect(view.locator(".cx-transcript-header")).to_have_text("Transcript: completed")
    expect(view.locator(".cx-transcript-review-error")).to_be_hidden()
    notebook.screenshot(f"auto_review_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
