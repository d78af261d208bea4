"""Small builders shared by the corpus modules."""

from __future__ import annotations

from typing import Any

import codex_nb as cx

from ..scenario import Scenario, UPDATE_PLAN_ON

DONE = [cx.assistant_message("done")]


def call(name: str, arguments: Any, call_id: str = "call_1", **kw: Any) -> dict[str, Any]:
    return cx.function_call(name, arguments, call_id=call_id, **kw)


def one_call(name: str, label: str, item: dict[str, Any], **kw: Any) -> Scenario:
    """A turn with one response holding ``item``, then a final message."""
    return Scenario(name=f"{name}", responses=[[item], DONE], **kw)


def raw_plan(name: str, arguments: str, **kw: Any) -> Scenario:
    return Scenario(name=name, responses=[[call("update_plan", arguments)], DONE], **kw)


__all__ = ["DONE", "UPDATE_PLAN_ON", "call", "one_call", "raw_plan"]
