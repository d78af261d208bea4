"""JSON as Codex writes it on the wire (compact, keys in order, no ASCII escaping), to show items and
tool specs exactly as a model receives them.
"""

from .protocol.wire import dumps

__all__ = [
    "dumps",
]
