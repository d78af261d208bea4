"""ReplayScrubber: step through the plan history of a saved Codex session.

A slider (and first / back / next / last buttons) over a ``RolloutReplay``; the plan
itself is shown by the same ``PlanChecklist`` a live thread uses, fed by the replay's
events. Built from stock ipywidgets, so it needs no extra front-end code.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets

from ..rollouts.rollout_replay import RolloutReplay
from .checklist import PlanChecklist
from .final_state import FinalStateFallback


class ReplayScrubber(FinalStateFallback, ipywidgets.VBox):
    """``cx.ReplayScrubber(cx.RolloutReplay(path))`` or ``cx.ReplayScrubber(path)``."""

    def __init__(self, replay: RolloutReplay | Any, *, width: int = 80, **kwargs: Any) -> None:
        if not isinstance(replay, RolloutReplay):
            replay = RolloutReplay(replay)
        self.replay = replay
        self.checklist = PlanChecklist(replay, width=width, max_rate=None)
        count = len(replay)
        self.slider = ipywidgets.IntSlider(
            value=0, min=0, max=max(0, count - 1), description="snapshot", disabled=count == 0, continuous_update=True
        )
        buttons = [
            ipywidgets.Button(description=label, disabled=count == 0, layout={"width": "auto"})
            for label in ("|<", "<", ">", ">|")
        ]
        for button, move in zip(buttons, (self.first, self.back, self.next, self.last), strict=True):
            button.on_click(lambda _b, move=move: move())
        self.label = ipywidgets.HTML(html.escape(replay.describe()))
        super().__init__([ipywidgets.HBox([*buttons, self.slider]), self.label, self.checklist], **kwargs)
        self.slider.observe(self._on_slider, names="value")
        if count:
            self.show(count - 1)

    def _on_slider(self, change: dict[str, Any]) -> None:
        if change["new"] != self.replay.position:
            self.show(change["new"])

    def show(self, index: int) -> None:
        """Show snapshot ``index`` (0-based) in the checklist and move the slider there."""
        self.replay.seek(index)
        self.checklist.flush()
        position = self.replay.position or 0
        if self.slider.value != position:
            self.slider.value = position
        self.label.value = html.escape(self.replay.describe())

    def first(self) -> None:
        """Show the first snapshot (the ``|<`` button)."""
        self.show(0)

    def last(self) -> None:
        """Show the latest snapshot (the ``>|`` button)."""
        self.show(len(self.replay) - 1)

    def back(self) -> None:
        """Show the snapshot before the one on screen, staying at the first (the ``<`` button)."""
        self.show(max(0, (self.replay.position or 0) - 1))

    def next(self) -> None:
        """Show the snapshot after the one on screen, staying at the last (the ``>`` button)."""
        self.show(min(len(self.replay) - 1, (self.replay.position or 0) + 1))

    def before_static(self) -> None:
        """Send the checklist's coalesced snapshot before the stored output is read."""
        self.checklist.before_static()

    def text(self) -> str:
        """The replay's position line (``RolloutReplay.describe()``) and, when there are snapshots,
        the checklist's text of the one shown."""
        return f"{self.replay.describe()}\n{self.checklist.text()}" if len(self.replay) else self.replay.describe()

    def html(self) -> str:
        """The position line and the checklist's static HTML, escaped."""
        return f"<div><p>{html.escape(self.replay.describe())}</p>{self.checklist.html()}</div>"

    def __repr__(self) -> str:
        return self.text()
