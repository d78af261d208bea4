"""Turns on one session: two threads racing to start one, results carrying their events when
started in the background, and a checklist created after a plan starts current."""

from __future__ import annotations

import asyncio
import threading

import codex_nb as cx
from codex_nb.runtime.turn import TurnResult
from codex_nb.widgets.checklist import PlanChecklist
from codex_nb.widgets.testing import RecordingComm, recording_comms


def test_two_threads_starting_turns_at_once_one_wins_one_gets_turn_error():
    session = cx.Session()
    outcomes: list[list[object]] = []
    for round_ in range(200):
        barrier, tried = threading.Barrier(2), threading.Barrier(2)
        got: list[object] = [None, None]

        # the round's values are bound now: a closure would read whatever the loop holds when it runs
        def attempt(
            slot: int,
            round_: int = round_,
            barrier: threading.Barrier = barrier,
            tried: threading.Barrier = tried,
            got: list[object] = got,
        ) -> None:
            async def run() -> object:
                model = cx.ScriptedModel([[cx.assistant_message(f"reply {round_}/{slot}")]])
                barrier.wait()
                try:
                    handle = session.start_turn(f"user {round_}/{slot}", model=model)
                except cx.TurnError as err:
                    tried.wait()
                    return err
                tried.wait()  # both have tried before the winner's turn runs: the turns overlap
                return await handle

            got[slot] = asyncio.run(run())

        threads = [threading.Thread(target=attempt, args=(slot,)) for slot in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcomes.append(got)
    for round_, got in enumerate(outcomes):
        results = [g for g in got if isinstance(g, TurnResult)]
        refused = [g for g in got if isinstance(g, cx.TurnError)]
        assert len(results) == 1 and len(refused) == 1, (round_, got)
        slot = got.index(results[0])
        texts = [part["text"] for item in results[0].items for part in item["content"]]
        assert texts == [f"user {round_}/{slot}", f"reply {round_}/{slot}"]  # never the other turn's items


async def test_a_background_turn_result_carries_its_events():
    session = cx.Session()
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "pending"}]}, call_id="p")],
            [cx.assistant_message("done")],
        ]
    )
    handle = session.start_turn("go", model=model)
    result = await handle
    assert [e.msg.type for e in result.events] == [
        "turn_started",
        "user_message",
        "plan_update",
        "agent_message",
        "turn_complete",
    ]
    assert all(e.turn_id == result.turn_id for e in result.events)


async def test_a_checklist_created_after_a_plan_starts_with_it():
    session = cx.Session()
    await session.call_tool("update_plan", {"plan": [{"step": "Published earlier", "status": "in_progress"}]})
    with recording_comms():
        widget = PlanChecklist(session)
    assert isinstance(widget.comm, RecordingComm)
    await widget.settled()
    assert widget.steps == [{"step": "Published earlier", "status": "in_progress"}]
    assert "Published earlier" in widget.text() and "(no plan yet)" not in widget.text()
    await session.call_tool("update_plan", {"plan": [{"step": "Newer", "status": "pending"}]})
    await widget.settled()
    assert widget.steps == [{"step": "Newer", "status": "pending"}]
    widget.close()


async def test_a_start_turn_arriving_while_another_is_starting_gets_turn_error() -> None:
    """The interleaving forced: a second thread calls ``start_turn`` while the first is between its
    check for a running turn and setting it (a plain check-then-set let both start)."""
    session = cx.Session()
    model = cx.ScriptedModel([[cx.assistant_message("only one")]])
    second: list[object] = []
    building = session.code_mode.terminate_cells_on_cancel  # runs while the first start builds its turn

    def other_thread_starts_now(turn: object) -> None:
        async def start() -> object:
            try:
                return session.start_turn("second", model=cx.ScriptedModel([[cx.assistant_message("two")]]))
            except cx.TurnError as err:
                return err

        thread = threading.Thread(target=lambda: second.append(asyncio.run(start())))
        thread.start()
        thread.join(timeout=10)  # a start that waits for the first one to finish would stall here
        assert not thread.is_alive(), "the second start_turn blocked instead of being refused"
        building(turn)

    session.code_mode.terminate_cells_on_cancel = other_thread_starts_now  # type: ignore[method-assign]
    handle = session.start_turn("first", model=model)
    assert len(second) == 1 and isinstance(second[0], cx.TurnError), second
    assert "(starting) is still running" in str(second[0])
    assert (await handle).last_agent_message == "only one"
    session.code_mode.terminate_cells_on_cancel = building  # type: ignore[method-assign]
    third = await session.run_turn("third", model=cx.ScriptedModel([[cx.assistant_message("3")]]))
    assert third.last_agent_message == "3"  # the refused start left nothing claimed
