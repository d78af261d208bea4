"""The real Codex's ``turn/diff/updated`` as codex_nb's ``turn_diff``: the pinned app-server
applying a scripted patch and running a scripted shell command that writes a file, in a git
work tree (Codex diffs a turn against the files as they were when the turn first touched them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.app_server.notifications import notification_events
from codex_nb.protocol.turn_diff import MAX_TURN_DIFF_CHARS, diff_files
from codex_nb.testing import RecordingSubscriber
from codex_nb.widgets.testing import recording_comms

from helpers.app_server_helpers import ADD_NOTES, UPDATE_APP, apply_patch_call, git_work_tree, real_codex


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_the_real_codex_turn_diff_arrives_with_its_files_and_lines(tmp_path: Path) -> None:
    work = git_work_tree(tmp_path / "work")
    script = [
        [apply_patch_call(ADD_NOTES, "a1")],
        [apply_patch_call(UPDATE_APP, "a2")],
        [cx.assistant_message("done")],
    ]
    home = tmp_path / "home"
    async with real_codex(script, home, approval_policy="never", sandbox_mode="workspace-write") as (server, _srv):
        thread = await server.start_thread(cwd=work)
        thread.answer_policy = cx.AnswerPolicy.recommended()
        log = RecordingSubscriber(thread)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
        timeline = cx.PlanTimeline(thread)
        result = await thread.start_turn("write notes and bump x")
        assert server.connection.schema_errors == []
    assert result.status == "completed"
    assert (work / "app.py").read_text() == "x = 2\ny = 3\n"
    diffs = log.of_type("turn_diff")
    assert diffs and all(e.turn_id == result.turn_id == e.msg.turn_id for e in diffs)
    assert result.diff is diffs[-1].msg and thread.turn_diffs[result.turn_id] is result.diff
    # it grows as the turn works: the first diff has the new file only, the last both
    first = {f.path: (f.kind, f.added, f.removed) for f in diff_files(diffs[0].msg.unified_diff).files}
    assert first == {"notes.txt": ("add", 2, 0)}
    files = {f.path: (f.kind, f.added, f.removed) for f in diff_files(result.diff.unified_diff).files}
    assert files == {"notes.txt": ("add", 2, 0), "app.py": ("update", 2, 1)}
    assert "+second" in result.diff.unified_diff and "-x = 1" in result.diff.unified_diff
    assert result.diff.cut_chars == 0
    text = transcript.text()
    assert "changes: 2 files changed, +4 -1" in text
    assert "  add notes.txt +2 -0" in text and "  update app.py +2 -1" in text
    html = transcript.html()
    assert "<b>What changed</b>: 2 files changed, +4 -1" in html and "+second" in html
    [changes] = timeline.turn_changes
    assert changes.turn_id == result.turn_id and (changes.added, changes.removed) == (4, 1)
    assert [(f.path, f.kind, f.added, f.removed) for f in changes.files] == [  # Codex sorts them by path
        ("app.py", "update", 2, 1),
        ("notes.txt", "add", 2, 0),
    ]
    [exported] = json.loads(timeline.to_json())["changes"]
    assert exported["files"][0] == {"path": "app.py", "kind": "update", "added": 2, "removed": 1}
    assert exported["unified_diff"] == result.diff.unified_diff and exported["cut_chars"] == 0
    markdown = timeline.to_markdown()
    assert "### What changed" in markdown and "- app.py (update) +2 -1" in markdown
    assert "```diff\n" in markdown and "\n+y = 3\n" in markdown


def test_a_huge_diff_is_cut_on_a_line_and_says_how_much() -> None:
    line = "+" + "x" * 99 + "\n"
    diff = "diff --git a/big b/big\n--- a/big\n+++ b/big\n@@ -0,0 +1,5000 @@\n" + line * 5000
    [event] = notification_events("turn/diff/updated", {"threadId": "t", "turnId": "u", "diff": diff})
    assert event.type == "turn_diff" and event.turn_id == "u"
    assert len(event.unified_diff) <= MAX_TURN_DIFF_CHARS and event.unified_diff.endswith("\n")
    assert event.cut_chars == len(diff) - len(event.unified_diff) > 0
    [warning] = notification_events("turn/diff/updated", {"threadId": "t", "turnId": "u", "diff": 3})
    assert warning.type == "warning" and "needs a string `diff`" in warning.message
