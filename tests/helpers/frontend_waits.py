"""Event-driven waits for requests that wait for a person (request_user_input, request_permissions),
at the broker or in the prompts widget."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import codex_nb as cx

if TYPE_CHECKING:
    from codex_nb.widgets.prompts import PromptsWidget


async def wait_pending(session: cx.Session, count: int = 1) -> list:
    """Wait until ``count`` requests are pending (woken by the broker, no polling); return them all."""
    changed = asyncio.Event()
    remove = session.frontend_requests.add_listener(changed.set)
    try:
        while len(session.frontend_requests.pending) < count:
            changed.clear()
            await changed.wait()
    finally:
        remove()
    return session.frontend_requests.pending


async def first_pending(session: cx.Session):
    """The first request once one is pending."""
    return (await wait_pending(session))[0]


async def until(widget: PromptsWidget, predicate: Any) -> None:
    """Wait for a trait change making ``predicate`` true (no sleeps)."""
    changed = asyncio.Event()
    handler = lambda _change: changed.set()  # noqa: E731
    widget.observe(handler, names=["requests", "resolved", "error"])
    try:
        while not predicate():
            changed.clear()
            await changed.wait()
    finally:
        widget.unobserve(handler, names=["requests", "resolved", "error"])
