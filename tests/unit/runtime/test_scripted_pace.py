"""``ScriptedModel(pace=...)``: a scripted model that takes its time, so a notebook's turn is seen live."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.errors import ScriptedModelError


def _plan(status: str) -> dict:
    return {"plan": [{"step": "Run the tests", "status": status}]}


async def test_each_response_waits_its_pace_and_the_plan_is_seen_before_the_answer() -> None:
    model = cx.ScriptedModel(
        [[cx.function_call("update_plan", _plan("in_progress"))], [cx.assistant_message("done")]], pace=0.2
    )
    loop = asyncio.get_running_loop()
    async with cx.Session() as session:
        seen: list[tuple[str, float]] = []
        session.subscribe(lambda event: seen.append((event.msg.type, loop.time())))
        started = loop.time()
        result = await session.run_turn("go", model=model)
    assert result.status == "completed" and result.last_agent_message == "done"
    plan_at = next(at for kind, at in seen if kind == "plan_update")
    assert plan_at - started >= 0.2  # the first response waited its pace
    assert loop.time() - plan_at >= 0.2  # and the answer waited again after the plan was out


async def test_stop_during_the_pace_ends_the_turn_and_leaves_the_response_unused() -> None:
    class Watched(cx.ScriptedModel):
        async def sample(self, request):  # type: ignore[no-untyped-def]
            sampling.set()
            return await super().sample(request)

    sampling = asyncio.Event()
    model = Watched([[cx.assistant_message("never said")]], pace=30, allow_leftover=True)
    async with cx.Session() as session:
        handle = session.start_turn("go", model=model)
        await sampling.wait()  # the turn is in the model's wait now
        session.interrupt()
        result = await asyncio.wait_for(handle, 10)
    assert result.status == "interrupted"
    assert model.remaining == 1


@pytest.mark.parametrize("pace", [-1, float("nan"), float("inf"), "1", True])
def test_a_bad_pace_is_a_clear_error(pace: object) -> None:
    with pytest.raises(ScriptedModelError, match=r"pace must be a number of seconds >= 0"):
        cx.ScriptedModel([[cx.assistant_message("x")]], pace=pace)  # type: ignore[arg-type]
