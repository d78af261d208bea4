"""The kernel side of Stop reaching the page: a stopped document call takes its request out of the
synced ``requests`` (what tells the page), and what the page reports afterwards, a skipped request
or a reply that comes too late, lands in ``after_stop`` and is never an error. The messages go
through the bridge's own comm handler, as the page's do."""

from __future__ import annotations

import asyncio

import pytest

from codex_nb.widgets.notebook_bridge import NotebookBridge

# ipylab 1.1 (the bridge's path to JupyterLab) still passes a trait type, which traitlets deprecates
pytestmark = pytest.mark.filterwarnings("ignore:Traits should be given as instances:DeprecationWarning")

HELLO = {"kind": "hello", "id": "page-1", "app": "JupyterLab 4", "document": True, "commands": True, "reason": ""}


def _from_page(bridge: NotebookBridge, message: dict) -> None:
    bridge._on_message(bridge, message, [])


async def _sent(bridge: NotebookBridge, count: int) -> list[dict]:
    """The requests the kernel has listed for the page, once there are ``count`` of them."""
    seen = asyncio.Event()
    bridge.observe(lambda change: len(change["new"]) == count and seen.set(), names="requests")
    if len(bridge.requests) != count:
        await asyncio.wait_for(seen.wait(), 5)
    return list(bridge.requests)


async def test_a_stopped_call_leaves_the_list_and_the_pages_reports_are_kept() -> None:
    bridge = NotebookBridge(frontend_timeout=5)
    try:
        _from_page(bridge, HELLO)
        insert = asyncio.create_task(bridge.insert_cell(index=0, cell_type="code", source="x = 1"))
        [request] = await _sent(bridge, 1)
        insert.cancel()  # Stop
        with pytest.raises(asyncio.CancelledError):
            await insert
        assert bridge.requests == []  # what tells the page to skip it
        _from_page(
            bridge,
            {
                "kind": "stopped",
                "id": request["id"],
                "page": "page-1",
                "op": "insert",
                "outcome": "skipped",
                "detail": "nothing was done",
            },
        )

        run = asyncio.create_task(bridge.run_cell(cell_id="c1", timeout=30))
        [running] = await _sent(bridge, 1)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        late = {
            "kind": "reply",
            "id": running["id"],
            "page": "page-1",
            "ok": True,
            "result": {"id": "c1", "cell_type": "code", "source": "", "execution_count": 3, "outputs": []},
            "error": "",
        }
        _from_page(bridge, late)  # dropped: nobody waits for it
        _from_page(bridge, late)  # a repeat is not reported twice
        _from_page(bridge, {**late, "id": "nb-999"})  # nor a reply to a request this kernel never gave up
    finally:
        bridge.close()
    assert [(r["op"], r["why"], r["outcome"]) for r in bridge.after_stop] == [
        ("insert", "stopped", "skipped"),
        ("run", "stopped", "finished"),
    ]
    assert bridge.after_stop[1]["detail"] == "the page answered after the kernel stopped waiting"
    assert bridge.error == ""


async def test_a_call_that_times_out_is_given_up_too() -> None:
    bridge = NotebookBridge(frontend_timeout=5)
    try:
        _from_page(bridge, HELLO)
        bridge.frontend_timeout = -9.9  # the edit's timeout is frontend_timeout + 10 s: 0.1 s
        with pytest.raises(Exception, match="did not answer edit within 0.1 s"):
            await bridge.edit_cell(cell_id="c1", expected_source="a", source="b")
        _from_page(
            bridge,
            {
                "kind": "stopped",
                "id": "nb-1",
                "page": "page-1",
                "op": "edit",
                "outcome": "failed",
                "detail": "conflict:c1",
            },
        )
    finally:
        bridge.close()
    assert [(r["op"], r["why"], r["outcome"], r["detail"]) for r in bridge.after_stop] == [
        ("edit", "timed out", "failed", "conflict:c1")
    ]
