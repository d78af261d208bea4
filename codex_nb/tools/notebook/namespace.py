"""``inspect_variable``: what a name in the user's namespace holds, without trusting it.

Its type, its size (``len``, ``shape``, ``dtype`` / ``dtypes``, ``columns``) and a bounded
``repr``. Each of those is the object's own code (a property, ``__len__``, ``__repr__``), so each
runs on a thread of its own with a timeout: one that raises is reported as raising, one that
hangs is reported as hanging, and the kernel goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from . import code_threads
from .visible_text import clean

ATTRIBUTES = ("shape", "dtype", "dtypes", "columns", "ndim", "size")


def user_namespace() -> dict[str, Any]:
    """The kernel's user namespace (IPython's ``user_ns``), or ``__main__``'s globals outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with every kernel
        shell = None
    else:
        shell = get_ipython()
    if shell is not None:
        namespace: dict[str, Any] = shell.user_ns
        return namespace
    import __main__

    main: dict[str, Any] = vars(__main__)
    return main


def _describe(value: Any, limit: int) -> dict[str, str]:
    """Runs on the inspection thread: every fact, each failure caught and named."""
    facts: dict[str, str] = {}
    kind = type(value)
    facts["type"] = f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else kind.__qualname__
    for attr in ATTRIBUTES:
        try:
            if not hasattr(value, attr):
                continue
            got = getattr(value, attr)
        except Exception as err:  # noqa: BLE001  a property of the user's object may raise anything
            facts[attr] = f"<raised {type(err).__name__}: {clean(err, 200)}>"
            continue
        if callable(got):
            continue
        facts[attr] = _safe_repr(got, 400)
    try:
        facts["len"] = str(len(value))
    except TypeError:
        pass
    except Exception as err:  # noqa: BLE001
        facts["len"] = f"<raised {type(err).__name__}: {clean(err, 200)}>"
    facts["repr"] = _safe_repr(value, limit)
    return facts


def _safe_repr(value: Any, limit: int) -> str:
    try:
        return clean(repr(value), limit)
    except Exception as err:  # noqa: BLE001
        return f"<__repr__ raised {type(err).__name__}: {clean(err, 200)}>"


async def inspect_variable(name: str, namespace: Mapping[str, Any], *, limit: int, timeout: float) -> str:
    """The facts about ``namespace[name]`` as text lines, or why there are none."""
    if not name.isidentifier():
        return f"`{clean(name, 80)}` is not a Python name; give a variable name such as `df`"
    if name not in namespace:
        near = sorted(k for k in namespace if not k.startswith("_") and k.lower().startswith(name[:1].lower()))[:10]
        hint = f"; names starting alike: {', '.join(near)}" if near else ""
        return f"no variable named `{name}` in the user namespace{hint}"
    value = namespace[name]
    facts = await _on_thread(lambda: _describe(value, limit), timeout=timeout, what=f"inspecting `{name}`")
    if isinstance(facts, str):
        return facts
    return "\n".join(f"{key}: {text}" for key, text in facts.items())


async def _on_thread(fn: Callable[[], dict[str, str]], *, timeout: float, what: str) -> dict[str, str] | str:
    run = code_threads.start(fn, name="codex-nb-inspect")
    try:
        await asyncio.wait_for(asyncio.shield(run.finished.wait()), timeout)
    except TimeoutError:
        stopped = await code_threads.stop(run)
        state = "it was interrupted" if stopped else "it is still running in the background (blocked in C code)"
        return f"{what} did not finish within {timeout:g} s (a hanging __repr__ or property); {state}"
    except asyncio.CancelledError:
        await code_threads.stop(run)
        raise
    if run.error:
        err = run.error[0]
        return f"{what} failed: {type(err).__name__}: {clean(err, 400)}"
    facts: dict[str, str] = run.result[0]
    return facts
