"""``RolloutReplay.capabilities``: a saved session played back offers its events only (nothing
to send, nothing to stop), and the widgets show no send or Stop control for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.timeline.answers import PlanAnswerError, PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget

SESSION = "0199a213-81c0-7800-8aa1-bbab2a035a53"


def _rollout(path: Path) -> Path:
    plan = {"plan": [{"step": "read", "status": "in_progress"}]}
    lines = [
        {"type": "session_meta", "payload": {"id": SESSION, "cwd": "/tmp"}},
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": "update_plan", "call_id": "p1", "arguments": json.dumps(plan)},
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "p1", "output": "Plan updated"},
        },
    ]
    path.write_text("".join(json.dumps({"timestamp": "2026-12-01T10:00:00.000Z", **line}) + "\n" for line in lines))
    return path


def test_a_replay_offers_nothing_to_send_or_stop(tmp_path: Path) -> None:
    replay = cx.RolloutReplay(_rollout(tmp_path / "rollout-x.jsonl"))
    caps = replay.capabilities
    assert isinstance(replay, cx.AgentSource)
    assert caps.replay and not caps.runs_turns and caps.mid_turn == "none" and not caps.interrupt
    assert not caps.answers and not caps.can_send and replay.active_turn is None
    with pytest.raises(cx.TurnError, match="runs no turn"):
        replay.start_turn("go on")
    with pytest.raises(cx.TurnError, match="runs no turn"):
        replay.send_during_turn("go on")
    replay.seek(0)
    controls = cx.TurnControls(replay)
    assert controls.can_stop is False  # the view shows no Stop button
    widget = PlanAnswersWidget.of(replay)
    assert widget.can_send is False and [s["step"] for s in widget.steps] == ["read"]
    with pytest.raises(PlanAnswerError, match="takes no answers"):
        widget.answers.comment(0, "why?")
    with pytest.raises(TypeError, match="asks a person"):
        cx.PromptsWidget(replay)
    widget.close()
    controls.close()
    assert isinstance(widget.answers, PlanAnswers)
