"""The turn's diff ("what changed") in the transcript, in a real JupyterLab and Notebook 7, fed by
the REAL Codex.

Codex (``codex app-server``, the pinned version) samples from the local Responses server, which
scripts two ``apply_patch`` calls in a git work tree; its ``turn/diff/updated`` becomes codex_nb's
``turn_diff`` and the transcript's "what changed" entry lists each file with its added and
removed lines; opening a file shows its lines coloured. No sleeps: every wait is an auto-waiting
expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import os, subprocess, tempfile
import codex_nb as cx
from codex_nb.testing import ResponsesServer

work = tempfile.mkdtemp(prefix="diff-work-")
with open(os.path.join(work, "app.py"), "w") as f:
    f.write("x = 1\\n")
for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
    subprocess.run(["git", *args], cwd=work, check=True, capture_output=True)
ADD = "*** Begin Patch\\n*** Add File: notes.txt\\n+first\\n+second\\n*** End Patch\\n"
UPDATE = "*** Begin Patch\\n*** Update File: app.py\\n@@\\n-x = 1\\n+x = 2\\n+y = 3\\n*** End Patch\\n"
patch = lambda text, cid: [cx.function_call("exec_command", {"cmd": f"apply_patch <<'EOF'\\n{text}EOF\\n"}, call_id=cid)]
srv = ResponsesServer([patch(ADD, "a1"), patch(UPDATE, "a2"), [cx.assistant_message("Done.")]]).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), approval_policy="never", sandbox_mode="workspace-write")
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=work)
transcript = cx.Transcript(thread)
display(transcript)
"""

TURN = """\
result = await thread.start_turn("Write notes and bump x")
print("fallback:", transcript.text().splitlines()[-3:])
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_transcript_shows_the_real_codexs_turn_diff_and_it_expands(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"turn_diff_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()
    view = page.locator(".cx-transcript")
    expect(view.locator(".cx-transcript-header")).to_have_text("Transcript: completed", timeout=120_000)
    entry = view.locator(".cx-transcript-row.cx-kind-diff")
    expect(entry.locator(".cx-transcript-label")).to_have_text("What changed \u00b7 2 files changed, +4 -1")
    files = entry.locator("details.cx-file-diff")
    expect(files).to_have_count(2)
    expect(files.nth(0).locator("summary")).to_have_text("update: app.py +2 -1")
    expect(files.nth(1).locator("summary")).to_have_text("add: notes.txt +2 -0")
    added = files.nth(0).locator(".cx-diff-line.cx-diff-add")
    expect(added.first).to_be_hidden()  # a file's lines are folded until the person opens it
    files.nth(0).locator("summary").click()
    expect(added).to_have_text(["+x = 2", "+y = 3"])
    expect(files.nth(0).locator(".cx-diff-line.cx-diff-del")).to_have_text(["-x = 1"])
    background = added.first.evaluate("node => getComputedStyle(node).backgroundColor")
    assert background not in ("", "rgba(0, 0, 0, 0)", "transparent")  # coloured as an approval's diff
    # the saved fallback says the same as the view
    expect(page.get_by_text(re.compile(r"fallback: \['changes: 2 files changed, \+4 -1'"))).to_be_visible()
    notebook.screenshot(f"turn_diff_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
