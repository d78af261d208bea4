"""Hook runs of the real Codex (``hook/started`` / ``hook/completed`` of the pinned app-server) in the
transcript, with event, handler, duration and outcome, and in the heartbeat while they run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets.heartbeat import Heartbeat
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.transcript import Transcript
from helpers.app_server_helpers import hook_trust_toml, plan_call, real_codex


@pytest.mark.requires_codex
async def test_a_codex_hook_that_blocks_is_in_the_transcript_and_the_heartbeat(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    block = "echo 'a plan needs two steps' >&2; exit 2"
    hook = {"matcher": "update_plan", "hooks": [{"type": "command", "command": block, "statusMessage": "check-plan"}]}
    (home / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    async with real_codex([], home) as (server, _srv):
        listed = (await server.request("hooks/list", {"cwds": [str(home)]}))["data"][0]["hooks"]
    script = [[plan_call([("only", "in_progress")], call_id="p1")], [cx.assistant_message("ok")]]
    async with real_codex(script, home, extra_toml=hook_trust_toml(listed)) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with recording_comms():
            transcript = Transcript(thread)
            beat = Heartbeat(thread)
        during: list[str] = []

        def on_hook(event: Any) -> None:
            if event.msg.type == "hook_started":
                during.append(beat.text())

        thread.subscribe(on_hook)
        result = await thread.start_turn("go")
    assert result.status == "completed"
    transcript.flush()
    hooks = [line for line in transcript.text().splitlines() if line.startswith("hook ")]
    assert len(hooks) == 1 and hooks[0].startswith("hook PreToolUse: check-plan [blocked] "), hooks
    assert "a plan needs two steps" in hooks[0]
    assert during == ["running hook PreToolUse: check-plan 0 s"]
    assert beat.text() == ""
    beat.close()
    transcript.close()
