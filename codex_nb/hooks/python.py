"""Run one in-process (notebook) hook: a sync or async callable, trusted
because the notebook's own code defined it.

A sync callable runs in a worker thread so its timeout can be enforced; when it overruns,
the run fails with ``hook timed out after {n}s`` and its eventual result is discarded.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

from ..config.hooks import PythonHandler
from ..tools.threads import sync_workers
from .outputs import RawRun
from .types import AddContext, Block, HookInput, Rewrite, Stop


def format_timeout(timeout: float) -> str:
    return f"{timeout:g}"


async def run_python(handler: PythonHandler, hook_input: HookInput) -> RawRun:
    """Call the hook; never raises except ``CancelledError``."""
    fn = handler.fn
    try:
        async with asyncio.timeout(handler.timeout):
            if inspect.iscoroutinefunction(fn):
                value = await fn(hook_input)
            else:
                value = await sync_workers().run(fn, hook_input)
                if inspect.isawaitable(value):
                    value = await value
    except TimeoutError:
        return RawRun(error=f"hook timed out after {format_timeout(handler.timeout)}s")
    except Exception as err:  # a crashing hook is a failed run, never a crashed turn
        return RawRun(error=f"hook raised {type(err).__name__}: {err}")
    return to_raw(value, hook_input.hook_event_name)


ALLOWED_RETURNS = (
    "return None (allow), a decision (Block, Rewrite, AddContext, Stop from codex_nb.hooks), "
    "the dict a command hook would print, or that dict as JSON text"
)


def to_raw(value: Any, event: str) -> RawRun:
    """``None``, a decision, a dict (the JSON a command would print) or that JSON as text.

    Anything else is a failed run, never a silent allow: a hook returning ``"block"``
    meant something, and the run's error says what a hook may return.
    """
    if isinstance(value, (Block, Rewrite, AddContext, Stop)):
        try:
            value = value.to_output(event)
        except ValueError as err:
            return RawRun(error=str(err))
    if value is None:
        return RawRun(value=None, has_value=True)
    if isinstance(value, dict):
        try:
            value = json.loads(json.dumps(value))  # what a command would have printed, checked now
        except (TypeError, ValueError, RecursionError) as err:
            return RawRun(error=f"hook output is not JSON ({type(err).__name__}: {err}); {ALLOWED_RETURNS}")
        return RawRun(value=value, has_value=True)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{") and text.endswith("}"):
            return RawRun(exit_code=0, stdout=value)
        return RawRun(error=f"hook returned the string {value[:80]!r}; {ALLOWED_RETURNS}")
    return RawRun(error=f"hook returned an unsupported value of type {type(value).__name__}; {ALLOWED_RETURNS}")
