"""Run one in-process (notebook) hook: a sync or async callable (spec 03, DESIGN §3).

A sync callable runs in a worker thread so its timeout can be enforced; when it overruns,
the run fails with ``hook timed out after {n}s`` and its eventual result is discarded.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from ..config.hooks import PythonHandler
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
                value = await asyncio.to_thread(fn, hook_input)
                if inspect.isawaitable(value):
                    value = await value
    except TimeoutError:
        return RawRun(error=f"hook timed out after {format_timeout(handler.timeout)}s")
    except Exception as err:  # a crashing hook is a failed run, never a crashed turn
        return RawRun(error=f"hook raised {type(err).__name__}: {err}")
    return to_raw(value, hook_input.hook_event_name)


def to_raw(value: Any, event: str) -> RawRun:
    """``None``, a decision, a dict (the JSON a command would print) or a str (its stdout)."""
    if value is None or isinstance(value, dict):
        return RawRun(value=value, has_value=True)
    if isinstance(value, (Block, Rewrite, AddContext, Stop)):
        try:
            return RawRun(value=value.to_output(event), has_value=True)
        except ValueError as err:
            return RawRun(error=str(err))
    if isinstance(value, str):
        return RawRun(exit_code=0, stdout=value)
    return RawRun(error=(
        f"hook returned an unsupported value of type {type(value).__name__}; return None, a decision "
        "(Block, Rewrite, AddContext, Stop) or the dict a command hook would print"))
