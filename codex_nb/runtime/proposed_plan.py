"""Plan mode's proposed plan in codex_nb's runtime: the ``<proposed_plan>`` block of a message.

In Plan mode Codex reads the model's message for a ``<proposed_plan>`` ... ``</proposed_plan>``
block and publishes it as a ``plan`` item of its own, apart from the message's other text; a turn
that ends with the plan and nothing else is the one Codex's TUI asks about ("Implement this
plan?"). The runtime does the same, so ``PlanTimeline.proposals`` and ``PlanAnswers.approve`` work
on a ``cx.Session`` as on the real Codex. The history keeps the message as the model wrote it.
"""

from __future__ import annotations

import re
import time

from ..protocol.events import ItemCompleted
from ..protocol.ids import random_uuid
from ..tools.invocation import TurnContext

_BLOCK = re.compile(r"<proposed_plan>\s*?\n?(.*?)</proposed_plan>\s*", re.DOTALL)


def split_proposed_plan(text: str) -> tuple[str | None, str]:
    """``(plan, rest)``: the first block's inner text (None without one), and the message without it."""
    match = _BLOCK.search(text)
    if match is None:
        return None, text
    return match.group(1), (text[: match.start()] + text[match.end() :]).strip()


def publish_proposed_plan(turn: TurnContext, text: str) -> str:
    """Emit the block of ``text`` as a completed ``plan`` item; returns the message's other text."""
    plan, rest = split_proposed_plan(text)
    if plan is None:
        return text
    item = {"type": "plan", "id": random_uuid(), "text": plan}
    turn.emit(
        ItemCompleted(
            thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, completed_at_ms=int(time.time() * 1000)
        )
    )
    return rest
