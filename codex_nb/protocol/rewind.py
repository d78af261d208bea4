"""``thread_rewound``: turns a thread no longer holds, after a rewind.

Codex's ``thread/revert`` cuts a thread's history before one turn (that turn and every later one
are gone from what the model is sent); its ``thread/reverted`` notification names only the thread.
The client that asked knows which turns it undid, so it says so with this event, and the
transcript, the plan timeline, the checklist and their saved fallbacks mark those turns. It lives
here, below all of them, as ``turn_diff`` does.
"""

from __future__ import annotations

from typing import Literal

from .events import EventMsg

MAX_REWOUND_TURNS = 1000
"""Turn ids one ``thread_rewound`` lists (the first ones; ``more_turns`` counts the rest)."""


class ThreadRewound(EventMsg):
    """``thread_rewound``: the thread's history now ends before ``before_turn_id``."""

    type: Literal["thread_rewound"] = "thread_rewound"
    before_turn_id: str
    """The first turn undone (every later one is undone too)."""
    turn_ids: list[str]
    """The undone turns codex_nb knew of, oldest first (at most ``MAX_REWOUND_TURNS``)."""
    more_turns: int = 0
    """Undone turns past ``MAX_REWOUND_TURNS`` not listed."""
    files_restored: bool = False
    """Whether the files those turns changed were put back (Codex's revert does not: False)."""


def rewound_line(msg: ThreadRewound) -> str:
    """One line saying what a rewind undid, for the transcript and the fallbacks' text."""
    count = len(msg.turn_ids) + msg.more_turns
    turns = f"{count} turn{'s' if count != 1 else ''}" if count else f"the turns from {msg.before_turn_id}"
    files = "files were restored" if msg.files_restored else "files they changed were not restored"
    return f"Rewound: {turns} undone ({files})"


__all__ = ["MAX_REWOUND_TURNS", "ThreadRewound", "rewound_line"]
