"""What a turn leaves in a session's history: the marker an interrupted turn appends, and the check
that every tool call in a list of items has its output (what Codex sends a model).
"""

from .runtime.history import is_paired
from .runtime.turn import TURN_ABORTED_MARKER

__all__ = [
    "TURN_ABORTED_MARKER",
    "is_paired",
]
