"""The keyboard interrupt during ``await handle`` stops the turn as its Stop control does.

A real SIGINT is sent to this process from another thread while the loop sits in its
selector with no timer due, as in a kernel whose cell awaits a turn; the real kernel's
interrupt button is in test_extension_kernel.py."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

import codex_nb as cx
from codex_nb import TurnInterrupted


class Previous:
    """The handler that was there before (ipykernel's, or Python's default)."""

    def __init__(self) -> None:
        self.calls = 0
        self.on_call = lambda: None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.calls += 1
        self.on_call()


@pytest.fixture
def previous() -> Iterator[Previous]:
    handler = Previous()
    saved = signal.signal(signal.SIGINT, handler)
    try:
        yield handler
    finally:
        signal.signal(signal.SIGINT, saved)


def sigint_from_another_thread() -> None:
    # aimed at the main thread, where the loop waits in its selector (a kernel's SIGINT lands there too)
    thread = threading.Thread(target=signal.pthread_kill, args=(threading.main_thread().ident, signal.SIGINT))
    thread.start()
    thread.join()


def waiting_session() -> tuple[cx.Session, asyncio.Event, asyncio.Event]:
    session, entered, never = cx.Session(), asyncio.Event(), asyncio.Event()

    @session.tool
    async def wait_forever() -> str:
        "Waits until the turn is stopped."
        entered.set()
        await never.wait()
        return "unreachable"

    return session, entered, never


async def test_sigint_interrupts_the_awaited_turn_and_restores_the_handler(previous: Previous) -> None:
    session, entered, _ = waiting_session()
    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.function_call("wait_forever", {}, call_id="w")]]))
    loop = asyncio.get_running_loop()
    previous.on_call = lambda: loop.call_soon_threadsafe(handle.interrupt)  # so the unfixed code ends too
    entered_waiter = asyncio.ensure_future(entered.wait())
    entered_waiter.add_done_callback(lambda _: sigint_from_another_thread())
    with pytest.raises(TurnInterrupted) as caught:
        await handle
    assert previous.calls == 0  # the relay took it; the cell was not cancelled
    assert signal.getsignal(signal.SIGINT) is previous
    assert caught.value._render_traceback_() == [f"TurnInterrupted: {caught.value}"]
    result = await handle  # awaiting again gives the result
    assert result is caught.value.result and result.status == "interrupted"
    assert [i["type"] for i in result.items if i.get("call_id") == "w"] == ["function_call", "function_call_output"]
    assert result.outputs()["w"].startswith("aborted by user after ")


async def test_a_second_sigint_while_the_turn_ends_goes_to_the_previous_handler(previous: Previous) -> None:
    session, entered, _ = waiting_session()

    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.function_call("wait_forever", {}, call_id="w")]]))

    async def wait() -> object:
        return await handle

    waiter = asyncio.ensure_future(wait())
    await entered.wait()
    relay = signal.getsignal(signal.SIGINT)
    assert relay is not previous and callable(relay)
    relay(signal.SIGINT, None)  # first press: the turn is told to stop
    relay(signal.SIGINT, None)  # second press, before the loop ran the interrupt
    assert previous.calls == 1
    with pytest.raises(TurnInterrupted):
        await waiter
    assert signal.getsignal(signal.SIGINT) is previous


async def test_an_ignored_sigint_stays_ignored_and_cancelling_the_awaiter_still_cancels_the_turn() -> None:
    session, entered, _ = waiting_session()
    saved = signal.signal(signal.SIGINT, signal.SIG_IGN)  # an idle kernel between cells
    try:
        handle = session.start_turn("go", model=cx.ScriptedModel([[cx.function_call("wait_forever", {}, call_id="w")]]))

        async def wait() -> object:
            return await handle

        waiter = asyncio.ensure_future(wait())
        await entered.wait()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        with pytest.raises(asyncio.CancelledError):
            await handle  # an external cancel, as before
    finally:
        signal.signal(signal.SIGINT, saved)
