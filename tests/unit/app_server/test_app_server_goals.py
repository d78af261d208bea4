"""Codex's thread goals (``thread/goal/*``): the pinned app-server, sampling from the local
Responses server, runs a goal through continuation turns it starts by itself until the model
calls its ``update_goal`` tool with ``complete``; Stop pauses the goal and interrupts the turn; a
malformed goal from the peer is a warning and the last state stays."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.app_server import binary as binary_module
from codex_nb.app_server.binary import CodexVersionError
from codex_nb.app_server.goal_run import GoalsDisabledError, GoalStalledError
from codex_nb.app_server.binary import parse_version
from codex_nb.app_server.goals import ORIGIN_SINCE, GoalNotificationError, goal_params, read_goal
from codex_nb.app_server.schema import SchemaValidator, protocol
from codex_nb.app_server.versions import features_of
from codex_nb.errors import TurnError
from codex_nb.protocol.goal import MAX_GOAL_FIGURE, MAX_OBJECTIVE_CHARS, ThreadGoal
from codex_nb.testing import RecordingSubscriber, ResponsesServer
from codex_nb.widgets.testing import recording_comms

from helpers.app_server_helpers import PLAN_TOOLS, Reached, Waiter, of_type, plan_call, real_codex
from helpers.app_server_peer import connected, line, receive, started_thread

WIRE_GOAL = {
    "threadId": "t",
    "objective": "ship it",
    "status": "active",
    "tokenBudget": 100_000,
    "tokensUsed": 12_952,
    "timeUsedSeconds": 65,
    "createdAt": 1,
    "updatedAt": 2,
}


def goal_script() -> list[object]:
    """Three continuation turns: a plan and a message, a message, then ``update_goal`` complete."""
    return [
        [plan_call([("look", "in_progress"), ("fix", "pending")], call_id="p1")],
        [cx.assistant_message("first: looked")],
        [cx.assistant_message("second: still working")],
        [cx.function_call("update_goal", {"status": "complete"}, call_id="g1")],
        [cx.assistant_message("goal done")],
    ]


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_goal_runs_through_continuation_turns_to_completion(tmp_path: Path) -> None:
    async with real_codex(goal_script(), tmp_path / "home") as (server, _srv):
        assert server.features["goals"]
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        with recording_comms():
            controls = cx.TurnControls(thread)
            transcript = cx.Transcript(thread)
        assert controls.goal == {} and not controls.text().startswith("Goal")
        result = await thread.run_goal("make the tests pass", budget=500_000)
        assert server.connection.schema_errors == []
    assert result.status == "complete" and not result.stopped
    assert [t.status for t in result.turns] == ["completed"] * 3
    assert [e.turn_id for e in result.events if e.msg.type == "turn_started"] == [t.turn_id for t in result.turns]
    texts = [i["text"] for t in result.turns for i in t.items if i.get("type") == "agentMessage"]
    assert texts == ["first: looked", "second: still working", "goal done"]
    assert thread.goal == result.goal
    assert thread.goal.objective == "make the tests pass" and thread.goal.token_budget == 500_000
    assert thread.goal.tokens_used > 0
    goals = [e.msg.goal for e in log.of_type("goal_updated")]
    assert goals[0].status == "active" and goals[-1].status == "complete"
    assert [p.msg.plan[0].step for p in log.of_type("plan_update")] == ["look"]  # the plan reaches the timeline
    assert thread.active_turn is None and thread.goals.running_turn is None
    # the goal card of the turn controls, live and saved, says what thread.goal says
    assert controls.text().splitlines()[:3] == [*thread.goal.text().splitlines(), "Turn: completed"]
    assert controls.goal["status_text"] == "complete"
    # the last continuation turn's transcript: what it worked toward, and how the goal ended
    assert transcript.text().splitlines()[1:] == [
        "notice: Goal (complete): make the tests pass",
        "assistant: goal done",
    ]
    assert '<div class="cx-goal-title">Goal (complete): make the tests pass</div>' in controls.html()


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_stop_pauses_the_goal_and_interrupts_its_turn(tmp_path: Path) -> None:
    reached = Reached()
    async with real_codex([reached], tmp_path / "home", allow_leftover=True) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        run = asyncio.ensure_future(thread.run_goal("never ends"))
        await reached.wait()
        with pytest.raises(TurnError, match="goal turn .* is running"):
            thread.start_turn("mine")
        assert thread.interrupt()  # what the turn controls' Stop calls
        result = await asyncio.wait_for(run, 60)
        assert (await thread.get_goal()).status == "paused"
    assert result.stopped and result.status == "paused"
    assert [t.status for t in result.turns] == ["interrupted"]
    assert not thread.interrupt()  # nothing runs now


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_pause_resume_clear_and_bad_arguments(tmp_path: Path) -> None:
    reached = Reached()
    async with real_codex([reached], tmp_path / "home", allow_leftover=True) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with pytest.raises(TurnError, match="non-empty str"):
            await thread.set_goal("  ")
        with pytest.raises(TurnError, match="positive int"):
            await thread.set_goal("x", budget=0)
        assert thread.goal is None and await thread.get_goal() is None
        assert await thread.clear_goal() is False
        log = RecordingSubscriber(thread)
        timeline = cx.PlanTimeline(thread)
        goal = await thread.set_goal("later", budget=10)
        assert goal.status == "active" and goal.token_budget == 10
        await reached.wait()  # Codex started a continuation turn by itself
        paused = await thread.pause_goal()
        assert paused.status == "paused" and thread.goal.status == "paused"
        assert (await thread.resume_goal()).status == "active"
        cleared = Waiter(thread, lambda e: e.msg.type == "goal_updated" and e.msg.goal is None)
        assert await thread.clear_goal() is True
        await cleared.wait(30)
        assert thread.goal is None and log.of_type("goal_updated")[-1].msg.goal is None
        # the plan timeline kept each change, in order, with the objective and budget
        assert [(g.status, g.objective, g.token_budget) for g in timeline.goals] == [
            ("active", "later", 10),
            ("paused", "later", 10),
            ("active", "later", 10),
            ("cleared", "later", 10),
        ]
        aborted = Waiter(thread, of_type("turn_aborted"))
        assert thread.interrupt()  # the goal is gone; its turn still runs and Stop ends it
        await aborted.wait(30)
        assert thread.goals.running_turn is None


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_goals_switched_off_in_config_say_how_to_switch_them_on(tmp_path: Path) -> None:
    async with real_codex([], tmp_path / "home", allow_leftover=True, features={"goals": False}) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with pytest.raises(GoalsDisabledError, match=r"feature is off .*features.goals"):
            await thread.set_goal("x")
    assert thread.goal is None


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_release_without_goals_is_told_so(tmp_path: Path) -> None:
    async with real_codex([], tmp_path / "home", allow_leftover=True) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        server._refused.add("thread/goal/set")  # as after the server answered it as unknown
        assert server.features["goals"] is False
        with pytest.raises(CodexVersionError, match=r"does not offer thread/goal/set .*supports Codex 0.160.0"):
            await thread.run_goal("x")
        assert thread.goals._run_turns is None  # the refused run left no state behind


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_goal_after_a_plan_mode_turn_is_refused_before_it_is_set(tmp_path: Path) -> None:
    """Codex leaves an active goal alone while the thread is in Plan mode: no turn would ever start
    and the run would wait for nothing. Refused at once, with what to do; a Default turn clears it."""
    script = [[cx.assistant_message("planned")], [cx.assistant_message("back")]]
    script += [[cx.function_call("update_goal", {"status": "complete"}, call_id="g1")], [cx.assistant_message("done")]]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        assert (await thread.run_turn("plan it", mode="plan")).status == "completed"
        assert thread.collaboration_mode == "plan"
        with pytest.raises(TurnError, match=r"in Plan mode .* Run a turn in Default mode first"):
            await thread.run_goal("finish")
        assert thread.goal is None and thread.goals._run_turns is None  # nothing was set
        assert (await thread.run_turn("go on", mode="default")).status == "completed"
        assert thread.collaboration_mode == "default"
        result = await thread.run_goal("finish")
    assert result.status == "complete" and [t.status for t in result.turns] == ["completed"]


async def test_a_goal_that_stays_active_with_no_turn_ends_the_run_with_what_happened(tmp_path: Path) -> None:
    """A server that sets the goal and then starts no turn (as Codex does when it skips a
    continuation without a word): the run ends after its idle_timeout, the goal still active, the
    error saying so and holding the run so far."""
    server = cx.CodexAppServer(codex_home=tmp_path)
    server._loop = asyncio.get_running_loop()
    async with connected(server) as (peer_reader, peer_writer, _connection):
        thread = await started_thread(server, (peer_reader, peer_writer), tmp_path)
        with pytest.raises(TurnError, match="idle_timeout must be a positive number of seconds"):
            await thread.run_goal("finish", idle_timeout=0)
        run = asyncio.ensure_future(thread.run_goal("finish", idle_timeout=0.5))
        request = await receive(peer_reader)
        assert request["method"] == "thread/goal/set"
        goal = {**WIRE_GOAL, "threadId": "th", "objective": "finish", "tokenBudget": None}
        peer_writer.write(line({"id": request["id"], "result": {"goal": goal}}))
        with pytest.raises(GoalStalledError) as stalled:
            await asyncio.wait_for(run, 30)
    said = str(stalled.value)
    assert "the goal is still active, but Codex has started no turn for it in the 0.5 s since the goal was set" in said
    assert "thread.pause_goal() or thread.clear_goal()" in said
    assert stalled.value.result.status == "active" and stalled.value.result.turns == []
    assert thread.goals._run_turns is None  # the next run may start


def test_a_goal_from_the_wire_is_read_bounded_and_checked() -> None:
    goal = read_goal(WIRE_GOAL)
    assert goal == ThreadGoal(
        objective="ship it",
        status="active",
        token_budget=100_000,
        tokens_used=12_952,
        time_used_seconds=65,
        created_at=1,
        updated_at=2,
    )
    assert goal.text() == "Goal (active): ship it\n12,952 of 100,000 tokens (12%) \u00b7 1 min 5 s"
    long = read_goal({**WIRE_GOAL, "objective": "x" * (MAX_OBJECTIVE_CHARS + 10), "tokensUsed": 10**30})
    assert long.objective.endswith("(10 more characters not shown)") and long.tokens_used == MAX_GOAL_FIGURE
    for bad, field in [
        ({**WIRE_GOAL, "status": "done"}, "status"),
        ({**WIRE_GOAL, "objective": 3}, "objective"),
        ({**WIRE_GOAL, "tokensUsed": -1}, "tokensUsed"),
        ({**WIRE_GOAL, "tokenBudget": "9"}, "tokenBudget"),
        ({k: v for k, v in WIRE_GOAL.items() if k != "timeUsedSeconds"}, "timeUsedSeconds"),
        ("goal", "not an object"),
    ]:
        with pytest.raises(GoalNotificationError, match=field):
            read_goal(bad)


def test_a_malformed_goal_notification_is_a_warning_and_the_goal_stays() -> None:
    from codex_nb.app_server.goal_run import GoalRuns

    class FakeThread:
        thread_id = "t"
        _completions: dict[str, object] = {}

        def __init__(self) -> None:
            self.emitted: list[object] = []

        def emit(self, msg: object, *, turn_id: str | None) -> None:
            self.emitted.append(msg)

    thread = FakeThread()
    runs = GoalRuns(thread)  # type: ignore[arg-type]
    runs.on_notification("thread/goal/updated", {"threadId": "t", "goal": WIRE_GOAL})
    kept = runs.goal
    runs.on_notification("thread/goal/updated", {"threadId": "t", "goal": {**WIRE_GOAL, "status": 7}})
    assert runs.goal == kept
    assert thread.emitted[-1].type == "warning" and "goal `status`" in thread.emitted[-1].message
    runs.on_notification("thread/goal/cleared", {"threadId": "t"})
    assert runs.goal is None and thread.emitted[-1].goal is None


def test_goals_are_a_feature_of_every_release_of_the_range() -> None:
    assert features_of("0.160.0")["goals"] and features_of("0.171.0")["goals"]


def test_the_person_s_goal_requests_say_so_to_every_release_that_takes_origin() -> None:
    """``origin: "user"`` goes to the releases whose schema has it (0.161.0 on, as every release's
    own schema says; codex_nb once sent it from 0.171.0 only), none to 0.160.x, which has no such field."""
    defs = protocol()["definitions"]
    for params in ("ThreadGoalSetParams", "ThreadGoalClearParams"):
        assert parse_version(defs[params]["properties"]["origin"]["x-codex-since"]) == ORIGIN_SINCE
    assert "origin" not in goal_params("t", "0.160.1")
    for version in ("0.161.0", "0.169.1", "0.171.0", None):
        assert goal_params("t", version, status="paused") == {"threadId": "t", "status": "paused", "origin": "user"}
    validator = SchemaValidator()
    assert validator.errors("ThreadGoalSetParams", goal_params("t", "0.161.0", objective="ship it")) == []


def _goal_records(timeline: cx.PlanTimeline) -> list[dict[str, object]]:
    """The exported goal records without their times (the timeline's clock differs run to run)."""
    return [{k: v for k, v in g.items() if k != "time"} for g in timeline.to_dict()["goals"]]


async def _goal_session(cassette: Path, home: Path, work: Path) -> list[dict[str, object]]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-local-test-key-0123456789"}
    async with cx.CodexAppServer(codex_home=home, env=env, cassette=cassette, validate=True) as server:
        thread = await server.start_thread(cwd=work)
        timeline = cx.PlanTimeline(thread)
        result = await thread.run_goal("make the tests pass", budget=500_000)
        assert result.status == "complete"
    return _goal_records(timeline)


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_goals_timeline_records_replay_from_a_cassette_without_the_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = [Path(tempfile.mkdtemp(prefix=prefix)) for prefix in ("codex-home-", "work-", "codex-home-", "work-")]
    try:
        cassette = tmp_path / "goal.cassette.jsonl"
        async with ResponsesServer(goal_script(), allow_leftover=True) as srv:
            srv.write_codex_home(made[0], **PLAN_TOOLS)
            live = await _goal_session(cassette, made[0], made[1])
        assert [g["status"] for g in live] == ["active", "complete"]
        assert live[-1]["objective"] == "make the tests pass" and live[-1]["token_budget"] == 500_000
        assert isinstance(live[-1]["tokens_used"], int) and live[-1]["tokens_used"] > 0
        # no Codex anywhere: the cassette alone gives the same records
        monkeypatch.delenv("CODEX_BIN", raising=False)
        monkeypatch.setenv("CODEX_NB_CODEX_REF", str(tmp_path / "no-codex-ref"))
        monkeypatch.setattr(binary_module, "_CHECKOUT", tmp_path / "no-checkout")
        monkeypatch.setenv("PATH", str(tmp_path / "no-path"))
        assert await _goal_session(cassette, made[2], made[3]) == live
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)
