"""Event-driven waits for requests that wait for a person (request_user_input, request_permissions)."""

from __future__ import annotations

import asyncio

import codex_nb as cx


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
