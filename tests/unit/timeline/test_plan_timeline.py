"""The plan flight recorder (``cx.PlanTimeline``): every accepted plan revision of a real
source, step-level diffs, bounded memory, refused out-of-order revisions and reports that
hostile step text cannot break."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.protocol.events import PlanUpdate
from codex_nb.timeline import PlanDiff, PlanRevision, PlanStep, SourceKind
from codex_nb.timeline.diff import diff_plans
from codex_nb.timeline.report import CELL_CHARS
from codex_nb.timeline.recorder import DEFAULT_MAX_REVISIONS, MAX_STEPS, MAX_TEXT

from helpers.app_server_helpers import plan_call, real_codex
from helpers.paths import ACP_AGENTS
from helpers.plan_timelines import FIVE_PLANS, BusSource, fixed_clock


# ---- a real cx.Session ----------------------------------------------------------------------


async def _five_updates(session: cx.Session) -> cx.PlanTimeline:
    timeline = cx.PlanTimeline(session, clock=fixed_clock)
    script: list[Any] = [
        [plan_call(steps, call_id=f"call-{i}", explanation="why" if i == 4 else None)]
        for i, steps in enumerate(FIVE_PLANS)
    ]
    script.append([cx.assistant_message("done")])
    result = await session.run_turn("make a plan", model=cx.ScriptedModel(script))
    assert result.status == "completed"
    return timeline


async def test_a_session_records_every_update_plan_call_with_its_call_and_turn(session: cx.Session) -> None:
    timeline = await _five_updates(session)
    revisions = timeline.revisions
    assert [r.index for r in revisions] == [0, 1, 2, 3, 4]
    assert [r.call_id for r in revisions] == [f"call-{i}" for i in range(5)]
    assert {r.turn_id for r in revisions} == {session.latest_plan().turn_id}
    assert all(r.source_kind is SourceKind.SESSION and r.notification is None for r in revisions)
    assert [[(s.step, s.status) for s in r.steps] for r in revisions] == FIVE_PLANS
    assert revisions[4].explanation == "why"
    assert revisions[0].time == fixed_clock()


async def test_diffs_flag_the_rename_the_regression_and_the_status_moves(session: cx.Session) -> None:
    timeline = await _five_updates(session)
    first = timeline.changes(0)
    assert first.old_index is None and len(first.added) == 3
    moved = timeline.diff(0, 1)
    assert [(c.old_status, c.new_status) for c in moved.status_changed] == [("pending", "in_progress")]
    assert moved.regressions == () and moved.unchanged == 2
    renamed = timeline.diff(2, 3)
    assert [(c.old_step, c.new_step, c.old_position, c.new_position) for c in renamed.renamed] == [
        ("Write the tests", "Write the unit tests", 1, 1)
    ]
    assert renamed.status_changed == () and renamed.added == () and renamed.removed == ()
    last = timeline.changes(4)
    assert [(c.new_step, c.old_status, c.new_status) for c in last.regressions] == [
        ("Read the code", "completed", "in_progress")
    ]
    assert [c.new_step for c in last.added] == ["Update the docs"]
    assert [c.old_step for c in last.removed] == ["Ship it"]
    assert last.explanation_changed
    # Over the whole history the rename and the status moves are seen at once.
    whole = timeline.diff(0, -1)
    assert [c.kind for c in whole.changes] == ["status", "renamed_status", "added", "removed"]
    assert [c.regression for c in whole.changes] == [False, False, False, False]


async def test_a_timeline_made_later_starts_from_the_latest_plan_and_follows_the_next_turn(
    session: cx.Session,
) -> None:
    model = cx.ScriptedModel([[plan_call([("a", "pending")], call_id="p1")], [cx.assistant_message("ok")]])
    await session.run_turn("one", model=model)
    timeline = cx.PlanTimeline(session)
    assert [(r.revision, r.call_id) for r in timeline.revisions] == [(1, None)]  # made before it: no call known
    model = cx.ScriptedModel([[plan_call([("a", "completed")], call_id="p2")], [cx.assistant_message("ok")]])
    second = await session.run_turn("two", model=model)
    assert [(r.call_id, r.turn_id) for r in timeline.revisions][1] == ("p2", second.turn_id)
    assert timeline.changes(1).status_changed[0].new_status == "completed"
    timeline.close()
    await session.run_turn(
        "three", model=cx.ScriptedModel([[plan_call([("b", "pending")], call_id="p3")], [cx.assistant_message("k")]])
    )
    assert len(timeline) == 2 and timeline.closed


async def test_a_rejected_update_plan_call_records_nothing(session: cx.Session) -> None:
    timeline = cx.PlanTimeline(session)
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": "not a list"}, call_id="bad")],
            [plan_call([("a", "pending")], call_id="good")],
            [cx.assistant_message("ok")],
        ]
    )
    await session.run_turn("plan", model=model)
    assert [r.call_id for r in timeline.revisions] == ["good"]


# ---- a rollout replay -------------------------------------------------------------------------


def _line(kind: str, payload: Any) -> str:
    return json.dumps({"timestamp": "2026-12-01T10:00:00.000Z", "type": kind, "payload": payload})


def _rollout(path: Path, plans: list[list[tuple[str, str]]]) -> Path:
    lines = [_line("session_meta", {"id": "0199a213-81c0-7800-8aa1-bbab2a035a53", "cwd": "/tmp"})]
    lines.append(_line("event_msg", {"type": "task_started", "turn_id": "t1"}))
    for i, steps in enumerate(plans):
        args = {"plan": [{"step": s, "status": st} for s, st in steps]}
        call = {"type": "function_call", "name": "update_plan", "call_id": f"p{i}", "arguments": json.dumps(args)}
        lines.append(_line("response_item", call))
        lines.append(
            _line("response_item", {"type": "function_call_output", "call_id": f"p{i}", "output": "Plan updated"})
        )
    lines.append(_line("event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": "done"}))
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_rollout_replay_is_recorded_as_it_is_scrubbed(tmp_path: Path) -> None:
    replay = cx.RolloutReplay(_rollout(tmp_path / "rollout.jsonl", FIVE_PLANS[:3]))
    with cx.PlanTimeline(replay, clock=fixed_clock) as timeline:
        for i in range(len(replay)):
            replay.seek(i)
        replay.seek(0)  # scrubbing back is a new revision that shows the old plan
    assert [(r.call_id, r.turn_id, r.source_kind) for r in timeline.revisions] == [
        ("p0", "t1", SourceKind.ROLLOUT),
        ("p1", "t1", SourceKind.ROLLOUT),
        ("p2", "t1", SourceKind.ROLLOUT),
        ("p0", "t1", SourceKind.ROLLOUT),
    ]
    back = timeline.changes(3)
    assert [(c.old_status, c.new_status) for c in back.regressions] == [
        ("completed", "pending"),
        ("in_progress", "pending"),
    ]
    assert timeline.thread_id == replay.thread_id and timeline.closed


async def test_a_rollout_is_loaded_whole_into_a_live_timeline(session: cx.Session, tmp_path: Path) -> None:
    timeline = cx.PlanTimeline(session, clock=fixed_clock)
    await session.run_turn(
        "plan", model=cx.ScriptedModel([[plan_call(FIVE_PLANS[0], call_id="live")], [cx.assistant_message("ok")]])
    )
    replay = cx.RolloutReplay(_rollout(tmp_path / "rollout.jsonl", FIVE_PLANS[:3]))
    assert timeline.load_rollout(replay) == 3  # the whole history, though the replay was never scrubbed
    assert replay.position is None
    assert [(r.index, r.call_id, r.source_kind, r.thread_id, r.revision) for r in timeline.revisions] == [
        (0, "live", SourceKind.SESSION, session.thread_id, 1),
        (1, "p0", SourceKind.ROLLOUT, replay.thread_id, None),
        (2, "p1", SourceKind.ROLLOUT, replay.thread_id, None),
        (3, "p2", SourceKind.ROLLOUT, replay.thread_id, None),
    ]
    assert timeline[1].time == 1_796_119_200.0  # the rollout's own timestamp, not the clock
    assert timeline[3].notification is None and timeline[3].turn_id == "t1"
    assert [c.new_step for c in timeline.changes(3).status_changed] == ["Read the code", "Write the tests"]
    assert timeline.load_rollout(tmp_path / "rollout.jsonl") == 3  # a path works too
    assert len(timeline) == 7


# ---- order and bounds -------------------------------------------------------------------------


def test_out_of_order_revisions_are_refused_and_counted_never_reordered() -> None:
    source = BusSource()
    timeline = cx.PlanTimeline(source, clock=fixed_clock)
    for revision, step in [(1, "a"), (3, "c"), (2, "b"), (3, "c again"), (4, "d")]:
        source.plan([(step, "pending")], revision=revision)
    assert [(r.index, r.revision, r.steps[0].step) for r in timeline.revisions] == [
        (0, 1, "a"),
        (1, 3, "c"),
        (2, 4, "d"),
    ]
    assert timeline.dropped_out_of_order == 2
    assert [(d.revision, d.newest) for d in timeline.out_of_order] == [(2, 3), (3, 3)]
    assert "2 out-of-order snapshot(s) were refused (revision 2 after 3, 3 after 3)" in timeline.to_markdown()
    assert json.loads(timeline.to_json())["dropped"]["out_of_order"] == 2


def test_snapshots_without_a_revision_number_are_recorded_in_arrival_order() -> None:
    source = BusSource()
    timeline = cx.PlanTimeline(source)
    source.plan([("a", "pending")], revision=None)
    source.plan([("b", "pending")], revision=None)
    assert [(r.index, r.revision) for r in timeline.revisions] == [(0, None), (1, None)]


def test_the_cap_evicts_the_oldest_and_says_how_many() -> None:
    assert DEFAULT_MAX_REVISIONS == 10_000
    source = BusSource()
    timeline = cx.PlanTimeline(source, max_revisions=3)
    for revision in range(1, 11):
        source.plan([(f"step {revision}", "pending")], revision=revision)
    assert [r.index for r in timeline.revisions] == [7, 8, 9]
    assert timeline.dropped_oldest == 7
    assert timeline[9].revision == 10 and timeline[-3].index == 7
    with pytest.raises(IndexError, match="revision 2 was evicted: this timeline keeps the newest 3 \\(7 dropped\\)"):
        timeline.diff(2, 9)
    # The first kept revision is compared with no plan: its predecessor is gone.
    assert timeline.changes(7).old_index is None
    assert "7 older revision(s) were dropped: the timeline keeps the newest 3." in timeline.to_markdown()
    assert json.loads(timeline.to_json())["dropped"]["oldest"] == 7
    assert "7 older revision(s) dropped" in repr(timeline)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_a_bad_cap_is_refused_with_what_was_given(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_revisions must be a positive int"):
        cx.PlanTimeline(BusSource(), max_revisions=bad)


def test_a_non_source_is_refused_saying_what_to_pass() -> None:
    with pytest.raises(TypeError, match="PlanTimeline needs an event source .* got list"):
        cx.PlanTimeline([])  # type: ignore[arg-type]


def test_other_threads_on_the_bus_are_ignored_and_counted() -> None:
    source = BusSource("mine")
    timeline = cx.PlanTimeline(source)
    source.bus.emit(PlanUpdate(plan=[]), id="x", thread_id="sub-agent", revision=1)
    assert len(timeline) == 0 and timeline.other_thread == 1


# ---- hostile text -----------------------------------------------------------------------------

HOSTILE = [
    "a | b || c",
    "`code` ``` fence",
    "<script>alert(1)</script> <img src=x onerror=alert(1)>",
    "line one\nline two\r\nthree\u2028four",
    "lone \ud800 surrogate",
    "# heading\n- list\n> quote\n1. ordered",
    "[link](javascript:alert(1)) ![img](x) @octocat &lt;",
    "\u202ereversed\x00nul\x1b[31m",
]


def _hostile_timeline() -> cx.PlanTimeline:
    source = BusSource()
    timeline = cx.PlanTimeline(source, clock=fixed_clock)
    source.plan([(text, "pending") for text in HOSTILE], revision=1, explanation="why |\n<b>")
    source.plan([(text + "!", "completed") for text in HOSTILE], revision=2)
    return timeline


def _rows(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("|")]


def test_hostile_step_text_cannot_break_the_markdown() -> None:
    markdown = _hostile_timeline().to_markdown()
    markdown.encode("utf-8")  # no lone surrogate left
    rows = _rows(markdown)
    assert len(rows) == 2 * (2 + len(HOSTILE))  # header, rule and one row per step, each revision
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == 5, row  # exactly the table's own pipes
    assert "<script" not in markdown and "<img" not in markdown and "<b>" not in markdown
    assert "`" not in markdown.replace("\\`", "").replace("`to_markdown(last=None)`", "")
    assert "\u202e" not in markdown and "\x00" not in markdown and "\x1b" not in markdown
    assert "@octocat" not in markdown
    assert "line one<br>line two<br>three<br>four" in markdown
    assert "lone \ufffd surrogate" in markdown
    # Only the report's own headings: the step's "# heading" is escaped.
    assert [line for line in markdown.splitlines() if line.startswith("#")] == [
        "### Plan history: 2 revisions (other, thread thread-1)",
        "#### Revision 0 · source revision 1 · turn t1 · 2026-12-01T12:00:00.000Z",
        "#### Revision 1 · source revision 2 · turn t1 · 2026-12-01T12:00:00.000Z",
    ]


def test_hostile_step_text_round_trips_through_json_as_well_formed_text() -> None:
    data = json.loads(_hostile_timeline().to_json())
    assert data["format"] == "codex_nb.plan_timeline" and data["version"] == 1
    steps = [s["step"] for s in data["revisions"][0]["steps"]]
    assert steps[4] == "lone \ufffd surrogate"
    assert steps[:4] == HOSTILE[:4]
    assert data["revisions"][0]["time"] == "2026-12-01T12:00:00.000Z"
    change = data["revisions"][1]["changes"]["steps"][0]
    assert change == {
        "kind": "renamed_status",
        "old_position": 0,
        "new_position": 0,
        "old_step": "a | b || c",
        "new_step": "a | b || c!",
        "old_status": "pending",
        "new_status": "completed",
        "similarity": change["similarity"],
        "regression": False,
    }


def test_very_long_text_and_too_many_steps_are_cut_and_said() -> None:
    source = BusSource()
    timeline = cx.PlanTimeline(source)
    huge = "x" * 1_000_000
    source.plan([(huge, "pending")] + [(f"s{i}", "pending") for i in range(MAX_STEPS + 5)], revision=1)
    revision = timeline[0]
    assert len(revision.steps) == MAX_STEPS and revision.steps_omitted == 6 and revision.truncated
    assert revision.steps[0].step == "x" * MAX_TEXT + f"… [{1_000_000 - MAX_TEXT} more characters]"
    markdown = timeline.to_markdown()
    assert len(markdown) < 200_000
    assert "6 more step(s) were not kept" in markdown
    shown = len(revision.steps[0].step) - CELL_CHARS
    assert f"| 1 | {'x' * CELL_CHARS} … *({shown} more characters)* | pending | added |" in markdown
    json.loads(timeline.to_json())


# ---- the diff itself --------------------------------------------------------------------------


def _steps(*pairs: tuple[str, str]) -> tuple[PlanStep, ...]:
    return tuple(PlanStep(step=s, status=st) for s, st in pairs)


def _diff(old: tuple[PlanStep, ...], new: tuple[PlanStep, ...]) -> PlanDiff:
    return diff_plans(old, new, old_index=0, new_index=1)


def test_reordered_steps_keep_their_identity() -> None:
    diff = _diff(_steps(("a", "pending"), ("b", "pending")), _steps(("b", "pending"), ("a", "pending")))
    assert diff.changes == () and diff.unchanged == 2 and diff.empty


def test_a_moved_and_reworded_step_is_matched_by_similarity() -> None:
    old = _steps(("Run the linter", "pending"), ("Fix the failing parser test", "pending"))
    new = _steps(("Fix the failing parser tests", "in_progress"), ("Deploy", "pending"))
    diff = _diff(old, new)
    assert [(c.kind, c.old_position, c.new_position) for c in diff.changes] == [
        ("renamed_status", 1, 0),
        ("added", None, 1),
        ("removed", 0, None),
    ]
    assert diff.renamed[0].similarity is not None and diff.renamed[0].similarity >= 0.6


def test_unlike_text_at_the_same_place_is_a_removal_and_an_addition() -> None:
    diff = _diff(
        _steps(
            ("Read the code", "pending"),
        ),
        _steps(
            ("Deploy to prod", "pending"),
        ),
    )
    assert [c.kind for c in diff.changes] == ["added", "removed"]


@pytest.mark.parametrize(
    ("old", "new", "regression"),
    [
        ("completed", "pending", True),
        ("completed", "in_progress", True),
        ("in_progress", "pending", True),
        ("pending", "in_progress", False),
        ("in_progress", "completed", False),
        ("pending", "completed", False),
    ],
)
def test_regressions_are_status_moves_backwards(old: str, new: str, regression: bool) -> None:
    diff = _diff(_steps(("a", old)), _steps(("a", new)))
    assert len(diff.status_changed) == 1 and bool(diff.regressions) is regression


def test_duplicate_steps_pair_off_in_order() -> None:
    diff = _diff(_steps(("a", "completed"), ("a", "pending")), _steps(("a", "completed"), ("a", "completed")))
    assert [(c.old_position, c.new_position, c.kind) for c in diff.changes] == [(1, 1, "status")]


@pytest.mark.slow
def test_a_large_plan_of_distinct_steps_diffs_in_bounded_work() -> None:
    old = tuple(PlanStep(step=f"{i:04d} " + "q" * 400, status="pending") for i in range(MAX_STEPS))
    new = tuple(PlanStep(step=f"{i:04d} " + "z" * 400, status="pending") for i in range(MAX_STEPS))
    diff = _diff(old, new)
    assert len(diff.added) == MAX_STEPS and len(diff.removed) == MAX_STEPS


# ---- reprs ------------------------------------------------------------------------------------


async def test_the_text_repr_lists_the_revisions(session: cx.Session) -> None:
    timeline = await _five_updates(session)
    text = repr(timeline)
    lines = text.splitlines()
    assert lines[0] == f"PlanTimeline: 5 revisions of thread {session.thread_id} (session; keeps the newest 10000)"
    turn = timeline[0].turn_id
    assert lines[1:] == [
        f"  #0 turn {turn} call call-0: 0/3 done; 3 added",
        f"  #1 turn {turn} call call-1: 0/3 done; 1 status change(s); now: Read the code",
        f"  #2 turn {turn} call call-2: 1/3 done; 2 status change(s); now: Write the tests",
        f"  #3 turn {turn} call call-3: 1/3 done; 1 renamed; now: Write the unit tests",
        f"  #4 turn {turn} call call-4: 1/3 done; 1 added, 1 removed, 2 status change(s), 1 regression(s), "
        "explanation changed; now: Read the code",
    ]
    from IPython.lib.pretty import pretty

    assert pretty(timeline) == text
    assert timeline._repr_markdown_() == timeline.to_markdown()


async def test_the_markdown_report_shows_each_revision_with_its_changes(session: cx.Session) -> None:
    timeline = await _five_updates(session)
    markdown = timeline.to_markdown()
    assert markdown.count("#### Revision ") == 5
    assert "| 2 | Write the unit tests | in progress | renamed from “Write the tests” |" in markdown
    assert "| 1 | Read the code | in progress | **regression**: completed → in progress |" in markdown
    assert "- ~~Ship it~~ (was pending)" in markdown
    assert "Changes: 1 added, 1 removed, 2 status change(s), 1 regression(s), explanation changed" in markdown
    short = timeline.to_markdown(last=2)
    assert short.count("#### Revision ") == 2 and "3 earlier revision(s) are not shown" in short


def test_the_public_record_types_are_keyword_only_and_frozen() -> None:
    step = PlanStep(step="a", status="pending")
    with pytest.raises(TypeError):
        PlanStep("a", "pending")  # type: ignore[misc]
    with pytest.raises(AttributeError):
        step.step = "b"  # type: ignore[misc]
    assert PlanRevision.__dataclass_params__.frozen  # type: ignore[attr-defined]
    from codex_nb.timeline import NoPlan, PlanProposal

    for record in (PlanProposal, NoPlan):
        assert record.__dataclass_params__.frozen, record  # type: ignore[attr-defined]
        assert all(f.kw_only for f in dataclasses.fields(record)), record


# ---- peers: an ACP agent and the real Codex ---------------------------------------------------


@pytest.mark.slow
async def test_an_acp_session_is_recorded_with_its_notification() -> None:
    agent = cx.AcpAgent(sys.executable, [str(ACP_AGENTS / "hostile_agent.py")])
    async with agent:
        session = await agent.new_session()
        timeline = cx.PlanTimeline(session, clock=fixed_clock)
        result = await session.prompt("burst 3 3")
    assert result.status == "completed"
    revisions = timeline.revisions
    assert [r.revision for r in revisions] == [1, 2, 3]
    assert {(r.source_kind, r.notification, r.call_id) for r in revisions} == {
        (SourceKind.ACP, "session/update (plan)", None)
    }
    assert [[s.status for s in r.steps] for r in revisions] == [
        ["pending", "pending", "pending"],
        ["completed", "pending", "pending"],
        ["completed", "completed", "pending"],
    ]
    assert [[c.new_step for c in timeline.changes(i).status_changed] for i in (1, 2)] == [["step 0"], ["step 1"]]


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_real_codex_thread_is_recorded_with_its_notification(tmp_path: Path) -> None:
    script = [
        [plan_call([("read", "in_progress"), ("write the file", "pending")], call_id="p1")],
        [plan_call([("read", "completed"), ("write the files", "in_progress")], call_id="p2")],
        [cx.assistant_message("finished")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        timeline = cx.PlanTimeline(thread)
        result = await thread.start_turn("plan")
    assert result.status == "completed"
    assert [(r.revision, r.turn_id, r.source_kind, r.notification) for r in timeline.revisions] == [
        (1, result.turn_id, SourceKind.APP_SERVER, "turn/plan/updated"),
        (2, result.turn_id, SourceKind.APP_SERVER, "turn/plan/updated"),
    ]
    changes = timeline.changes(1)
    assert [(c.kind, c.old_step, c.new_step) for c in changes.changes] == [
        ("status", "read", "read"),
        ("renamed_status", "write the file", "write the files"),
    ]


class RacingSource(BusSource):
    """A source whose plan arrives through the subscription while ``latest_plan`` is read (a
    peer thread publishing during the timeline's start)."""

    def latest_plan(self) -> cx.events.Event | None:
        self.plan([("a", "pending")], revision=1)
        return self.bus.latest_plan()


def test_the_cached_plan_already_delivered_is_neither_recorded_twice_nor_counted_as_dropped() -> None:
    timeline = cx.PlanTimeline(RacingSource())
    assert [r.revision for r in timeline.revisions] == [1]
    assert timeline.dropped_out_of_order == 0


async def test_a_direct_call_tool_is_recorded_with_its_call_id(session: cx.Session) -> None:
    timeline = cx.PlanTimeline(session)
    await session.call_tool("update_plan", {"plan": [{"step": "a", "status": "pending"}]})
    (revision,) = timeline.revisions
    assert revision.call_id is not None and revision.call_id.startswith("call_")


# ---- token usage, kept per turn ---------------------------------------------------------------


async def test_each_turns_usage_is_kept_and_exported(session: cx.Session) -> None:
    from codex_nb.timeline import TurnUsage

    timeline = cx.PlanTimeline(session, clock=fixed_clock)
    assert timeline.usage == () and "usage" not in timeline.to_dict()  # older exports stay as they were
    first = cx.ScriptedModel(
        [[plan_call([("a", "completed")], call_id="p")], [cx.assistant_message("one")]],
        usage=[{"total_tokens": 100}, {"total_tokens": 120}],
    )
    first.model_context_window = 1000  # type: ignore[attr-defined]
    one = await session.run_turn("one", model=first)
    two = await session.run_turn(
        "two", model=cx.ScriptedModel([[cx.assistant_message("b")]], usage=[{"total_tokens": 130}])
    )
    await session.run_turn("three", model=cx.ScriptedModel([[cx.assistant_message("c")]]))  # reports none
    assert timeline.usage == (
        TurnUsage(turn_id=one.turn_id, context_used=120, context_window=1000, turn=220, total=220),
        TurnUsage(turn_id=two.turn_id, context_used=130, context_window=1000, turn=130, total=350),
    )
    assert json.loads(timeline.to_json())["usage"] == [
        {"turn_id": one.turn_id, "context_used": 120, "context_window": 1000, "turn": 220, "total": 220},
        {"turn_id": two.turn_id, "context_used": 130, "context_window": 1000, "turn": 130, "total": 350},
    ]
    report = timeline.to_markdown()
    assert "| Turn | Context | This turn | In all |" in report
    assert f"| {one.turn_id} | 120 of 1,000 tokens (12%) | 220 | 220 |" in report
    later = cx.PlanTimeline(session)
    await session.run_turn("four", model=cx.ScriptedModel([[cx.assistant_message("d")]], usage=[{"total_tokens": 5}]))
    assert [(u.turn, u.total, u.context_window) for u in later.usage] == [(5, 355, None)]
    assert later.to_markdown().endswith("| 5 tokens | 5 | 355 |\n")
    assert all(f.kw_only for f in dataclasses.fields(TurnUsage)) and TurnUsage.__dataclass_params__.frozen  # type: ignore[attr-defined]


# ---- the turn's diff, kept per turn ---------------------------------------------------------------


def test_each_turns_latest_diff_is_kept_exported_and_bounded() -> None:
    from codex_nb.protocol.turn_diff import TurnDiff
    from codex_nb.timeline.recorder import MAX_TURN_CHANGES

    source = BusSource()
    timeline = cx.PlanTimeline(source)
    assert timeline.turn_changes == () and "changes" not in timeline.to_dict()  # older exports stay as they were
    first = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+one\n"
    source.bus.emit(TurnDiff(turn_id="t1", unified_diff=first), id="t1", turn_id="t1")
    # a later diff of the turn is the whole turn's so far: it replaces the first; a backtick fence in it stays inside
    whole = first + "--- a/b.md\n+++ b/b.md\n@@ -1 +1 @@\n-```\n+````python\n"
    source.bus.emit(TurnDiff(turn_id="t1", unified_diff=whole, cut_chars=9), id="t1", turn_id="t1")
    [changes] = timeline.turn_changes
    assert [(f.path, f.kind, f.added, f.removed) for f in changes.files] == [
        ("a.txt", "add", 1, 0),
        ("b.md", "update", 1, 1),
    ]
    assert json.loads(timeline.to_json())["changes"] == [
        {
            "turn_id": "t1",
            "added": 2,
            "removed": 1,
            "more_files": 0,
            "files": [
                {"path": "a.txt", "kind": "add", "added": 1, "removed": 0},
                {"path": "b.md", "kind": "update", "added": 1, "removed": 1},
            ],
            "unified_diff": whole,
            "cut_chars": 9,
        }
    ]
    markdown = timeline.to_markdown()
    section = markdown[markdown.index("### What changed") :]
    assert section.splitlines()[:6] == [
        "### What changed",
        "",
        "Turn t1: 2 file(s), +2 -1",
        "",
        "- a.txt (add) +1 -0",
        "- b.md (update) +1 -1",
    ]
    assert "\n`````diff\n" in section and "\n+````python\n`````\n" in section  # the fence outlasts the diff's
    assert "*the source's diff was cut: 9 characters not kept*" in section
    for n in range(MAX_TURN_CHANGES + 5):
        source.bus.emit(TurnDiff(turn_id=f"u{n}", unified_diff=first), id=f"u{n}", turn_id=f"u{n}")
    assert len(timeline.turn_changes) == MAX_TURN_CHANGES and timeline.turn_changes[0].turn_id == "u5"


# ---- a real Codex thread's goal --------------------------------------------------------------


def _goal(status: str, *, used: int = 0, seconds: int = 0, objective: str = "ship it", budget: int | None = 1000):
    from codex_nb.protocol.goal import ThreadGoal

    return ThreadGoal(
        objective=objective, status=status, token_budget=budget, tokens_used=used, time_used_seconds=seconds
    )


def test_goal_changes_are_recorded_in_order_and_usage_alone_refreshes_the_newest() -> None:
    from codex_nb.protocol.goal import GoalUpdated
    from codex_nb.timeline.recorder import MAX_GOAL_RECORDS

    source = BusSource()
    timeline = cx.PlanTimeline(source, clock=fixed_clock)
    assert timeline.goals == () and "goals" not in timeline.to_dict()  # older exports stay as they were
    source.bus.emit(GoalUpdated(goal=None), id="c0")  # a clearing of nothing: no record
    for i, (goal, turn) in enumerate(
        [
            (_goal("active"), None),
            (_goal("active", used=100, seconds=5), "t1"),  # usage alone
            (_goal("paused", used=150, seconds=7), None),
            (_goal("active", used=150, seconds=7), None),
            (_goal("budgetLimited", used=1000, seconds=65), "t2"),
            (None, None),
        ]
    ):
        source.bus.emit(GoalUpdated(goal=goal, turn_id=turn), id=f"g{i}", turn_id=turn)
    records = timeline.goals
    assert [(g.index, g.status, g.tokens_used, g.turn_id) for g in records] == [
        (0, "active", 100, None),  # set with no turn; a continuation turn's usage refreshed it
        (1, "paused", 150, None),
        (2, "active", 150, None),
        (3, "budgetLimited", 1000, "t2"),
        (4, "cleared", 1000, None),
    ]
    assert (
        records[3].line()
        == "Goal (stopped: token budget used up): ship it \u00b7 1,000 of 1,000 tokens (100%) \u00b7 1 min 5 s"
    )
    assert records[4].line() == "Goal cleared: ship it"
    exported = timeline.to_dict()["goals"]
    assert exported[0] == {
        "index": 0,
        "time": "2026-12-01T12:00:00.000Z",
        "turn_id": None,
        "status": "active",
        "objective": "ship it",
        "token_budget": 1000,
        "tokens_used": 100,
        "time_used_seconds": 5,
        "line": "Goal (active): ship it \u00b7 100 of 1,000 tokens (10%) \u00b7 5 s",
    }
    assert [g["status"] for g in json.loads(timeline.to_json())["goals"]] == [g.status for g in records]
    markdown = timeline.to_markdown()
    section = markdown[markdown.index("### Goal") :].splitlines()
    assert section[2] == (
        "- 2026-12-01T12:00:00.000Z: Goal (active): ship it \u00b7 100 of 1,000 tokens (10%) \u00b7 5 s"
    )
    assert section[6] == "- 2026-12-01T12:00:00.000Z: Goal cleared: ship it"
    assert "  Goal cleared: ship it" in timeline.text().splitlines()
    # a hostile objective is escaped in the Markdown and kept whole in the JSON; the records are bounded
    source.bus.emit(GoalUpdated(goal=_goal("active", objective="<b>|x|</b> @me")), id="h")
    assert "&lt;b&gt;\\|x\\|&lt;/b&gt; @\u200bme" in timeline.to_markdown()
    for n in range(MAX_GOAL_RECORDS + 5):
        source.bus.emit(GoalUpdated(goal=_goal("paused" if n % 2 else "active", used=n)), id=f"n{n}")
    assert len(timeline.goals) == MAX_GOAL_RECORDS and timeline.goals[-1].index == MAX_GOAL_RECORDS + 5 + 5


def test_rewound_turns_are_exported() -> None:
    from codex_nb.protocol.rewind import ThreadRewound

    source = BusSource()
    timeline = cx.PlanTimeline(source, clock=fixed_clock)
    assert "rewound_turns" not in timeline.to_dict()
    source.bus.emit(ThreadRewound(before_turn_id="t2", turn_ids=["t2", "t3"]), id="r")
    assert timeline.to_dict()["rewound_turns"] == ["t2", "t3"]
    assert "*Rewound (undone, files not restored): turn(s) t2, t3*" in timeline.to_markdown()
