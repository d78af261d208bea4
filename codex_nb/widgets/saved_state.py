"""Re-send the widget state a background task changed, at the end of each cell, so it is saved.

nbclient (``jupyter nbconvert --execute``, nbval, papermill) saves a notebook's widget state
(``metadata.widgets``) from the comm messages it read while each cell ran, and it reads only
messages whose parent is the running cell. A ``%%codex`` turn runs in an asyncio task made in
the cell that started it; ipykernel 7 keeps that cell as the parent of everything the task
sends, so a change made while a later cell runs (the outcome line, the Stop control, the
checklist at the turn's end) is dropped, and the saved file shows the turn running while its
outputs say it completed. A live front end is not affected: it applies every message.

So at the end of every cell (IPython's ``post_run_cell``, before the cell's reply, so the
messages carry that cell as parent) each open widget sends the keys of its state that changed
since the previous cell ended. A widget seen for the first time sends its whole state except
the keys that never change (its module names and an anywidget's bundle). A live front end gets
values it already has, which it ignores; the cost is one message per changed widget per cell.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("codex_nb.widgets.saved_state")

CONSTANT_KEYS = frozenset(
    {
        "_esm",
        "_css",
        "_anywidget_id",
        "_model_name",
        "_model_module",
        "_model_module_version",
        "_view_name",
        "_view_module",
        "_view_module_version",
    }
)
"""State keys fixed when a widget is made: never re-sent (an anywidget's bundle is large)."""

_SENT: dict[str, dict[str, Any]] = {}
"""Per model id: the state as of the previous cell's end."""
_HOOKED: set[int] = set()


def install(shell: Any) -> None:
    """Re-send changed widget state at the end of each cell of ``shell`` (once per shell)."""
    if id(shell) in _HOOKED:
        return
    shell.events.register("post_run_cell", resend_changed)
    _HOOKED.add(id(shell))


def resend_changed(*_result: object) -> int:
    """Send, for every open widget, the keys changed since the last call; returns how many widgets sent."""
    from ipywidgets.widgets.widget import _instances

    sent = 0
    open_ids = set()
    for model_id, widget in list(_instances.items()):
        if getattr(widget, "comm", None) is None:
            continue
        open_ids.add(model_id)
        try:
            state = {key: _frozen(value) for key, value in widget.get_state().items()}
            before = _SENT.get(model_id)
            if before is None:
                keys = [key for key in state if key not in CONSTANT_KEYS]
            else:
                keys = [key for key, value in state.items() if before.get(key) != value]
            _SENT[model_id] = state
            if keys:
                widget.send_state(keys)
                sent += 1
        except Exception:  # one widget's bad state must not break every later cell
            log.exception("could not re-send the state of %r", widget)
    for gone in set(_SENT) - open_ids:
        del _SENT[gone]
    return sent


def _frozen(value: Any) -> Any:
    """A copy of a serialised state value that a later change in place cannot alter."""
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_frozen(item) for item in value]
    if isinstance(value, (memoryview, bytearray)):
        return bytes(value)
    return value
