"""Keep a widget's stored ``text/plain`` and ``text/html`` at its final state, not its first render.

A notebook saved or executed by nbclient keeps each output's MIME bundle as it was published.
A checklist is usually displayed before its turn runs, so the bundle it published says
"(no plan yet)", and that is what ``jupyter nbconvert --to html``, a docs site or GitHub show.
Widget state saved in the notebook metadata would let the HTML widget manager redraw the view,
but only with network access (it loads the manager and anywidget from a CDN) and only where
that manager runs; a rich ``text/html`` output is read everywhere, offline too.

So a widget with this mixin publishes its bundle with a display id, and at the end of every
cell (IPython's ``post_run_cell``, before the cell's reply, so nbclient records it with the
cell) it republishes the bundle in place with ``update_display`` if its text or HTML changed.
Live front ends re-render the view of an updated output, which is why this happens once per
cell at most, never on every plan update. A widget remembers its newest ``MAX_DISPLAYS``
displays; an older display keeps the state it last had.
"""

from __future__ import annotations

import logging
import uuid
import weakref
from typing import Any

from . import saved_state
from .static_fallback import StaticFallback

log = logging.getLogger("codex_nb.widgets.final_state")

MAX_DISPLAYS = 8
"""Displays of one widget kept up to date (the newest); older ones keep their last state."""

_SHOWN: weakref.WeakSet[FinalStateFallback] = weakref.WeakSet()
_HOOKED: weakref.WeakSet[Any] = weakref.WeakSet()


class FinalStateFallback(StaticFallback):
    """``StaticFallback`` whose stored bundle follows the widget to its final state."""

    def _ipython_display_(self) -> None:
        from IPython.core.getipython import get_ipython
        from IPython.display import display

        shell = get_ipython()
        data, metadata = self._repr_mimebundle_()
        if shell is None or getattr(shell, "kernel", None) is None:
            # not in a Jupyter kernel: no front end stores this output (and a terminal would
            # print every update again), so it is shown once
            display(data, metadata=metadata, raw=True)
            return
        display_id = uuid.uuid4().hex
        display(data, metadata=metadata, raw=True, display_id=display_id)
        displays: list[str] = self.__dict__.setdefault("_final_displays", [])
        displays.append(display_id)
        del displays[:-MAX_DISPLAYS]
        self.__dict__["_final_published"] = (data.get("text/plain"), data.get("text/html"))
        _SHOWN.add(self)
        if shell not in _HOOKED:
            shell.events.register("post_run_cell", _republish_all)
            _HOOKED.add(shell)
        # after _republish_all (registered first), which sends what a checklist still coalesces
        saved_state.install(shell)

    def before_static(self) -> None:
        """Called before the final state is read: send anything still being coalesced."""

    def republish(self) -> bool:
        """Update every kept display of this widget if its text or HTML changed; True if it did."""
        from IPython.display import update_display

        displays = self.__dict__.get("_final_displays") or []
        if not displays or getattr(self, "comm", None) is None:
            return False  # never shown, or closed: a closed widget's outputs keep their last state
        self.before_static()
        data, metadata = self._repr_mimebundle_()
        published = (data.get("text/plain"), data.get("text/html"))
        if published == self.__dict__.get("_final_published"):
            return False
        self.__dict__["_final_published"] = published
        for display_id in displays:
            update_display(data, metadata=metadata, raw=True, display_id=display_id)
        return True


def _republish_all(*_result: object) -> None:
    for widget in list(_SHOWN):
        try:
            widget.republish()
        except Exception:  # one widget's bad state must not break every later cell
            log.exception("could not update the stored output of %r", widget)
