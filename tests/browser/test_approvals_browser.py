"""Every approval decision and both MCP elicitation kinds answered by a person in Chromium, in
JupyterLab and Notebook 7, in the light and the dark theme.

The real Codex (``codex app-server`` 0.169.0, read-only sandbox, ``on-request`` approvals)
asks for escalated commands (it offers accept, accept-with-rule and cancel) and for file
changes (accept, accept-for-session, decline, cancel); each turn's card is answered with
another decision. A real MCP server (tests/mcp_servers/elicit_server.py, the official SDK)
asks codex_nb's own MCP client for a form and a URL. The network-rule decisions are a
request of the same shape opened in the session's broker: the pinned binary offers them only
behind its managed network proxy, which a test cannot start. The kernel reports through
Labels; every wait is an auto-waiting ``expect``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook
from .test_widget_themes_browser import CONTRAST

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import asyncio, json, os, sys, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer

def quote(body):
    outputs = [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]
    return [cx.assistant_message("model got: " + outputs[-1][-200:])]

def escalated(cmd):
    return cx.function_call("exec_command", {"cmd": cmd, "sandbox_permissions": "require_escalated",
                                             "justification": "needs a file"})

PATCH = "*** Begin Patch\\n*** Update File: notes.txt\\n@@\\n-old line\\n+new line\\n same\\n*** End Patch\\n"
patch = lambda: cx.function_call("exec_command", {"cmd": f"apply_patch <<'EOF'\\n{PATCH}EOF\\n"})
work = tempfile.mkdtemp(prefix="approvals-")
with open(os.path.join(work, "notes.txt"), "w") as f:
    f.write("old line\\nsame\\n")
script = [[escalated("touch one.txt")], quote, [escalated("touch two.txt")],
          [patch()], quote, [patch()], quote, [escalated("touch three.txt")], quote]
srv = ResponsesServer(script, allow_leftover=True).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), approval_policy="on-request",
                            sandbox_mode="read-only")
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=work)
thread.frontend_requests.view_grace = 120  # a slow first render must not fail the request
prompts = cx.PromptsWidget(thread)
status = widgets.Label(value="no turn yet")
display(prompts, status)
"""

TURNS = """\
async def turns():
    for n in range(5):
        result = await thread.start_turn(f"turn {n}")
        status.value = f"turn {n}: {result.status}: " + (result.items[-1].get("text", "") if result.items else "")

codex_turns = asyncio.ensure_future(turns())
"""

OWN = """\
from codex_nb.frontend.decisions import options_from_app_server
from codex_nb.frontend.requests import RequestKind
from codex_nb.protocol.frontend import ExecApprovalRequestEvent, NetworkApprovalContext

forms = {"command": sys.executable, "args": [ELICIT_SERVER], "startup_timeout_sec": 60, "tool_timeout_sec": 300}
session = cx.Session(cx.Config(extra={"mcp_servers": {"forms": forms}}))
session.frontend_requests.view_grace = 120
servers = cx.McpServers.attach(session)
own_prompts = cx.PromptsWidget(session)
own_status = widgets.Label(value="waiting for codex")
display(own_prompts, own_status)

def call(name):
    return {"type": "function_call", "namespace": "mcp__forms", "name": name, "arguments": "{}", "call_id": name}

async def own():
    await codex_turns
    await servers.start()
    rule = lambda action: {"applyNetworkPolicyAmendment": {
        "network_policy_amendment": {"host": "example.com", "action": action}}}
    msg = ExecApprovalRequestEvent(
        call_id="net", turn_id="net", command="curl https://example.com", cwd=work, reason="fetch the page",
        available_decisions=options_from_app_server(["accept", rule("allow"), rule("deny"), "decline"], what="command"),
        network_approval_context=NetworkApprovalContext(host="example.com", protocol="https"))
    broker = session.frontend_requests
    settled = await broker.wait(broker.open(RequestKind.APPROVAL, turn_id="net", call_id="net", msg=msg))
    own_status.value = "network: " + settled.response["decision"]
    model = cx.ScriptedModel([[call("sign_up")], [call("log_in")], [cx.assistant_message("done")]])
    result = await session.run_turn("sign me up", model=model)
    def answer(output):  # the server's tool result quotes what it received
        return json.loads(json.loads(output[output.index("{"):])["result"])

    outputs = result.outputs()
    own_status.value = "elicited: " + json.dumps([answer(outputs["sign_up"]), answer(outputs["log_in"])])
    await servers.stop()
    record = [(r.kind, r.answered_by) for r in [*thread.approvals, *session.approvals]]
    own_status.value += " | record: " + json.dumps(record)

own_task = asyncio.ensure_future(own())
"""


def _set_theme(page: Any, theme: str) -> None:
    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    light = "true" if theme == "JupyterLab Light" else "false"
    page.wait_for_function("(v) => document.body.dataset.jpThemeLight === v", arg=light)


def _decide(page: Any, card_text: str, decision: str) -> Any:
    from playwright.sync_api import expect

    card = page.locator(".cx-approval", has_text=card_text)
    expect(card).to_be_visible(timeout=120_000)
    card.locator(f'button[data-decision="{decision}"]').click()
    expect(card).to_have_count(0)
    return card


def _readable(locator: Any, theme: str, minimum: float = 4.5) -> None:
    ratio = locator.evaluate(CONTRAST)
    assert ratio >= minimum, (theme, ratio)


@pytest.mark.parametrize(("ui", "first_theme"), [("lab", "JupyterLab Light"), ("notebook", "JupyterLab Dark")])
def test_every_decision_and_both_elicitations_answered_in_the_browser(
    page: Any, jupyter_server: JupyterServer, ui: str, first_theme: str
) -> None:
    from playwright.sync_api import expect

    from helpers.app_server_helpers import ELICIT_SERVER

    name = f"approvals_{ui}.ipynb"
    cells = [SETUP, TURNS, f"ELICIT_SERVER = {str(ELICIT_SERVER)!r}\n" + OWN]
    notebook = open_notebook(page, jupyter_server, name, cells, ui=ui)
    _set_theme(page, first_theme)
    notebook.run_all()
    status = page.locator(".widget-label", has_text="turn ")

    # turn 0: Codex's own order and labels; the rule it would add is shown beside its button
    command = page.locator(".cx-approval", has_text="touch one.txt")
    expect(command).to_be_visible(timeout=120_000)
    expect(command.locator(".cx-command")).to_have_text("/bin/bash -lc 'touch one.txt'")
    expect(command.locator(".cx-cwd")).to_contain_text("cwd: /")
    expect(command.locator(".cx-reason")).to_have_text("needs a file")
    expect(command.get_by_role("button")).to_have_text(
        [
            "Yes, run it once",
            "Yes, and don't ask again for commands starting with `touch one.txt`",
            "No, and stop the turn",
        ]
    )
    detail = command.locator(".cx-decision-detail")
    expect(detail).to_have_text("rule: allow commands starting with touch one.txt")
    for theme in (first_theme, "JupyterLab Dark" if first_theme == "JupyterLab Light" else "JupyterLab Light"):
        _set_theme(page, theme)
        _readable(detail, theme)
        _readable(command.locator(".cx-prompt-title"), theme)
        notebook.screenshot_of(command, f"approval_{ui}_{theme.split()[-1].lower()}.png")
    _decide(page, "touch one.txt", "approve_with_execpolicy_amendment")
    expect(status).to_contain_text("turn 0: completed", timeout=120_000)

    # turn 1: cancel stops the turn (decline, in turn 2, only rejects the call)
    _decide(page, "touch two.txt", "cancel")
    expect(status).to_contain_text("turn 1: interrupted", timeout=120_000)

    # turn 2: a file change: its diff, coloured and collapsible, and Codex's four decisions
    change = page.locator(".cx-approval", has_text="notes.txt")
    expect(change).to_be_visible(timeout=120_000)
    expect(change.get_by_role("button")).to_have_text(
        [
            "Yes, apply them once",
            "Yes, and don't ask again for these files this session",
            "No, skip this call (the turn goes on)",
            "No, and stop the turn",
        ]
    )
    added = change.locator(".cx-diff-line.cx-diff-add")
    removed = change.locator(".cx-diff-line.cx-diff-del")
    expect(added).to_have_text("+new line")
    expect(removed).to_have_text("-old line")
    backgrounds = {line.evaluate("(e) => getComputedStyle(e).backgroundColor") for line in (added, removed)}
    assert len(backgrounds) == 2 and "rgba(0, 0, 0, 0)" not in backgrounds  # tinted, differently
    change.locator("summary").click()  # collapse, then open again
    expect(change.locator(".cx-diff")).to_be_hidden()
    change.locator("summary").click()
    expect(change.locator(".cx-diff")).to_be_visible()
    notebook.screenshot_of(change, f"file_change_{ui}.png")
    _decide(page, "notes.txt", "decline")
    expect(status).to_contain_text("turn 2: completed", timeout=120_000)
    expect(status).to_contain_text("rejected")

    # turn 3 and 4: approve the change for the session, then approve a command once
    _decide(page, "notes.txt", "approve_for_session")
    expect(status).to_contain_text("turn 3: completed", timeout=120_000)
    _decide(page, "touch three.txt", "approve")
    expect(status).to_contain_text("turn 4: completed", timeout=120_000)

    # network rules: the host and the rule each decision would save
    network = page.locator(".cx-approval", has_text="curl https://example.com")
    expect(network).to_be_visible(timeout=120_000)
    expect(network.locator(".cx-network")).to_have_text("network: https://example.com")
    expect(network.locator(".cx-decision-detail")).to_have_text(
        [
            "rule: allow example.com (saved; applies to every later request to this host)",
            "rule: deny example.com (saved; applies to every later request to this host)",
        ]
    )
    network.locator('button[data-decision="apply_network_policy_amendment:2"]').click()
    result = page.locator(".widget-label", has_text="network: ")
    expect(result).to_have_text("network: apply_network_policy_amendment:2", timeout=60_000)

    # the form: a bad value is refused naming the field; then the answer goes back to the server
    form = page.locator("form.cx-elicitation[data-mode=form]")
    expect(form).to_be_visible(timeout=120_000)
    expect(form.locator(".cx-prompt-title")).to_have_text("forms asks for information")
    expect(form.locator(".cx-elicitation-message")).to_have_text("Sign up for the newsletter service")
    form.locator('[data-field="email"] input').fill("not-an-email")
    form.locator('[data-field="plan"] select').select_option("pro")
    form.get_by_role("button", name="Submit").click()
    expect(form.locator(".cx-form-error")).to_have_text('"Email" must be an email address.')
    _readable(form.locator(".cx-form-error"), "current")
    form.locator('[data-field="email"] input').fill("ada@example.com")
    form.locator('[data-field="age"] input').fill("36")
    form.locator('[data-field="newsletter"] input').check()
    form.locator('[data-field="topics"] input[value="rust"]').check()
    notebook.screenshot_of(form, f"elicitation_form_{ui}.png")
    form.get_by_role("button", name="Submit").click()
    expect(form).to_have_count(0)

    # the URL: shown as text with its domain, never a link; accepting sends accept only
    link = page.locator("form.cx-elicitation[data-mode=url]")
    expect(link).to_be_visible(timeout=120_000)
    expect(link.locator(".cx-domain b")).to_have_text("login.example.com")
    expect(link.locator(".cx-url")).to_have_text("https://login.example.com/authorize?client=codex_nb")
    assert link.locator("a").count() == 0
    link.get_by_role("button", name="Accept (I will open it)").click()
    expect(link).to_have_count(0)

    done = page.locator(".widget-label", has_text="elicited: ")
    expect(done).to_contain_text(
        'elicited: [{"action": "accept", "content": {"age": 36, "email": "ada@example.com", "newsletter": true, '
        '"plan": "pro", "topics": ["rust"]}}, {"action": "accept", "content": null}]',
        timeout=120_000,
    )
    expect(done).to_contain_text('"approval", "widget"')
    expect(done).to_contain_text('"elicitation", "widget"')
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
