"""Codex's automatic review of approvals (``approvals_reviewer = "auto_review"``) on the pinned
app-server: the reviewer is a model request of its own ("APPROVAL REQUEST" in its input), which
the local Responses server answers with the verdict JSON Codex's reviewer writes
(``{"outcome": "allow"|"deny", "risk_level", "user_authorization", "rationale"}``). The review is
shown as Codex's, never as the person's answer, and a denial can be overridden."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.app_server.binary import codex_binary
from codex_nb.app_server.notifications import notification_events
from codex_nb.errors import TurnError
from codex_nb.protocol.auto_review import (
    MAX_OVERRIDE_ACTION_CHARS,
    MAX_RATIONALE_CHARS,
    MAX_REVIEW_TEXT_CHARS,
    AutoApprovalReview,
)
from codex_nb.testing import RecordingSubscriber, ResponsesServer
from codex_nb.widgets.testing import recording_comms

ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}
ALLOW = {"risk_level": "low", "user_authorization": "high", "outcome": "allow", "rationale": "The person asked for it."}
DENY = {"risk_level": "high", "user_authorization": "low", "outcome": "deny", "rationale": "Not asked for: risky."}
OVERRIDDEN = "The user has manually approved a specific action that was previously"
"""The developer message Codex adds after thread/approveGuardianDeniedAction."""


def reviewer(verdict: Callable[[str], dict[str, Any]]) -> Callable[[dict[str, Any]], Any]:
    """Answers the reviewer's own model requests (not the script's) with ``verdict(its input)``."""

    def answer(body: dict[str, Any]) -> Any:
        text = json.dumps(body.get("input"))
        return [cx.assistant_message(json.dumps(verdict(text)))] if "APPROVAL REQUEST" in text else None

    return answer


@contextlib.asynccontextmanager
async def guarded_codex(
    script: list[Any], home: Path, verdict: Callable[[str], dict[str, Any]]
) -> AsyncIterator[tuple[cx.CodexAppServer, ResponsesServer]]:
    async with ResponsesServer(script, allow_leftover=True, background=reviewer(verdict)) as srv:
        srv.write_codex_home(
            home, approval_policy="on-request", sandbox_mode="workspace-write", approvals_reviewer="auto_review"
        )
        env = {**os.environ, "OPENAI_API_KEY": "sk-local-test"}
        async with cx.CodexAppServer(binary=codex_binary(), codex_home=home, env=env, validate=True) as server:
            yield server, srv


def reviews(log: RecordingSubscriber) -> list[AutoApprovalReview]:
    return [e.msg for e in log.events if isinstance(e.msg, AutoApprovalReview)]


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_an_approved_review_runs_the_command_and_says_codex_approved_it_not_the_person(tmp_path: Path) -> None:
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("made")]]
    async with guarded_codex(script, tmp_path / "home", lambda _input: ALLOW) as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
        timeline = cx.PlanTimeline(thread)
        result = await thread.start_turn("make the file")
        assert server.connection.schema_errors == []
    assert result.status == "completed" and (tmp_path / "approved.txt").exists()
    assert len(srv.background_requests) == 1  # the reviewer was asked once
    started, done = reviews(log)
    assert (started.status, done.status) == ("in_progress", "approved")
    assert done.review_id == started.review_id and done.target_item_id == "e1" and done.turn_id == result.turn_id
    assert done.action_kind == "command" and "touch approved.txt" in done.action
    assert (done.risk_level, done.user_authorization, done.rationale) == ("low", "high", "The person asked for it.")
    assert thread.auto_reviews[done.review_id] is done
    # no question to the person, and nothing recorded as the person's answer
    assert not thread.frontend_requests.pending and thread.server_requests.answered == []
    assert not [e for e in log.events if e.msg.type.endswith("approval_request")]
    text = transcript.text()
    assert (
        "automatic review [approved by the automatic review] /bin/bash -lc 'touch approved.txt' "
        "(risk low, authorization high): The person asked for it." in text
    )
    [entry] = [e for e in transcript.entries if e["kind"] == "review"]
    assert (entry["status"], entry["detail"], entry["text"]) == (
        "approved",
        "risk low, authorization high",
        ALLOW["rationale"],
    )
    assert transcript.can_override
    assert "automatic review [approved by the automatic review]" in transcript.html()
    # the timeline keeps it apart from the person's answers, in its JSON and its Markdown
    assert timeline.auto_reviews == (done,) and timeline.answers == ()
    [exported] = json.loads(timeline.to_json())["auto_reviews"]
    assert (exported["status"], exported["overridden"], exported["risk_level"]) == ("approved", False, "low")
    assert exported["line"].startswith("automatic review [approved by the automatic review]")
    markdown = timeline.to_markdown()
    assert "### Automatic reviews (Codex's reviewer, not the person)" in markdown
    assert "approved by the automatic review" in markdown


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_denied_review_does_not_run_and_the_persons_override_reaches_the_model_next_turn(
    tmp_path: Path,
) -> None:
    """Denied: not run, the entry says so with the rationale. The person overrides it: Codex tells
    the model (the next turn, as none runs) that the person approved that exact action; the model
    asks again and the reviewer, seeing that approval, allows it."""
    script = [
        [cx.function_call("exec_command", ESCALATED, call_id="e1")],
        [cx.assistant_message("denied")],
        [cx.function_call("exec_command", ESCALATED, call_id="e2")],
        [cx.assistant_message("made")],
    ]
    async with guarded_codex(script, tmp_path / "home", lambda seen: ALLOW if OVERRIDDEN in seen else DENY) as (
        server,
        srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
        timeline = cx.PlanTimeline(thread)
        first = await thread.start_turn("make the file")
        assert first.status == "completed" and not (tmp_path / "approved.txt").exists()
        denied = reviews(log)[-1]
        assert denied.status == "denied" and denied.rationale == DENY["rationale"] and denied.can_override
        assert "automatic review [denied by the automatic review]" in transcript.text()
        assert "Not asked for: risky." in transcript.text()
        assert thread.server_requests.answered == []
        # the view's confirmed button press
        assert transcript.receive({"kind": "override_review", "id": denied.review_id})
        await asyncio_wrap(transcript.overrides[-1])
        assert transcript.review_error == ""
        overridden = thread.auto_reviews[denied.review_id]
        assert overridden.overridden and not overridden.can_override
        assert "denied by the automatic review; overridden by you" in transcript.text()
        assert [r.overridden for r in timeline.auto_reviews] == [True]
        assert '"overridden": true' in timeline.to_json()
        with pytest.raises(TurnError, match="already overridden"):
            await thread.approve_denied_action(denied)
        second = await thread.start_turn("go ahead")
        assert server.connection.schema_errors == []
    assert second.status == "completed" and (tmp_path / "approved.txt").exists()
    told = json.dumps(srv.requests[2]["input"])  # the second turn's first model request
    assert OVERRIDDEN in told and "touch approved.txt" in told
    assert reviews(log)[-1].status == "approved" and len(srv.background_requests) == 2


async def asyncio_wrap(future: Any) -> Any:
    import asyncio

    return await asyncio.wait_for(asyncio.wrap_future(future), 30)


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_only_a_seen_denial_can_be_overridden(tmp_path: Path) -> None:
    script = [[cx.assistant_message("hi")]]
    async with guarded_codex(script, tmp_path / "home", lambda _input: DENY) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with pytest.raises(TurnError, match="no automatic review 'nope' on this thread"):
            await thread.approve_denied_action("nope")
        approved = review_params(status="approved")
        thread.on_notification("item/autoApprovalReview/completed", approved)
        with pytest.raises(TurnError, match="is approved: only a denial can be overridden"):
            await thread.approve_denied_action("r1")
        huge = review_params()
        huge["reviewId"] = "r2"
        huge["action"] = {**huge["action"], "command": "x" * MAX_OVERRIDE_ACTION_CHARS}
        thread.on_notification("item/autoApprovalReview/completed", huge)
        assert thread.auto_reviews["r2"].assessment == {} and not thread.auto_reviews["r2"].can_override
        with pytest.raises(TurnError, match="denied an action too large to send back"):
            await thread.approve_denied_action("r2")


def review_params(**review: Any) -> dict[str, Any]:
    return {
        "threadId": "t",
        "turnId": "u",
        "reviewId": "r1",
        "startedAtMs": 1,
        "completedAtMs": 2,
        "decisionSource": "agent",
        "targetItemId": "e1",
        "review": {"status": "denied", "riskLevel": "high", "userAuthorization": "low", "rationale": "no", **review},
        "action": {"type": "command", "source": "unifiedExec", "command": "rm -rf x", "cwd": "/w"},
    }


def test_the_assessment_sent_back_is_the_cores_snake_case_event() -> None:
    [msg] = notification_events("item/autoApprovalReview/completed", review_params())
    assert isinstance(msg, AutoApprovalReview)
    assert msg.assessment == {
        "id": "r1",
        "turn_id": "u",
        "target_item_id": "e1",
        "started_at_ms": 1,
        "completed_at_ms": 2,
        "status": "denied",
        "risk_level": "high",
        "user_authorization": "low",
        "rationale": "no",
        "decision_source": "agent",
        "action": {"type": "command", "source": "unified_exec", "command": "rm -rf x", "cwd": "/w"},
    }


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"threadId": "t"}, "needs string `reviewId` and `turnId` and objects `review` and `action`"),
        ({**review_params(), "review": "denied"}, "needs string `reviewId`"),
        ({**review_params(), "review": {"status": "vetoed"}}, "review status 'vetoed' or action type 'command'"),
        ({**review_params(), "action": {"type": 7}}, "is not one codex_nb knows"),
    ],
)
def test_a_malformed_review_is_a_one_line_warning(params: dict[str, Any], said: str) -> None:
    [msg] = notification_events("item/autoApprovalReview/started", params)
    assert msg.type == "warning" and said in msg.message and "\n" not in msg.message  # type: ignore[attr-defined]
    assert msg.message.endswith("this automatic review is not shown")  # type: ignore[attr-defined]


def test_an_unknown_action_kind_and_a_huge_rationale_are_kept_bounded() -> None:
    params = review_params(rationale="why " * 10_000)
    params["action"] = {"type": "teleport", "where": "x" * 10_000}
    [msg] = notification_events("item/autoApprovalReview/completed", params)
    assert isinstance(msg, AutoApprovalReview)
    assert msg.action == "teleport" and msg.action_kind == "teleport"
    assert msg.rationale is not None and len(msg.rationale) == MAX_RATIONALE_CHARS
    assert msg.rationale_cut_chars == 40_000 - MAX_RATIONALE_CHARS
    assert len(msg.assessment["rationale"]) == MAX_RATIONALE_CHARS
    params["action"] = {"type": "command", "command": "y" * 10_000}
    [msg] = notification_events("item/autoApprovalReview/completed", params)
    assert len(msg.action) == MAX_REVIEW_TEXT_CHARS  # type: ignore[attr-defined]
    [warning] = notification_events("guardianWarning", {"threadId": "t", "message": "z" * 5000})
    assert warning.type == "warning" and len(warning.message) < 600  # type: ignore[attr-defined]


def test_the_transcript_refuses_a_bad_message_and_a_source_without_overrides() -> None:
    class Source:
        thread_id = "t"

        def subscribe(self, _fn: Any) -> Callable[[], None]:
            return lambda: None

    with recording_comms():
        transcript = cx.Transcript(Source(), max_rate=None)
    assert not transcript.can_override
    assert not transcript.receive({"kind": "override_review", "id": "r1"})
    assert "only a real Codex thread can" in transcript.review_error
    assert not transcript.receive({"kind": "delete_everything"})
    assert transcript.review_error == (
        "the transcript refused a message from its view: unknown message kind 'delete_everything'; "
        "expected one of ['override_review', 'rewind']"
    )
