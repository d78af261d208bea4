"""Random ids in uuid4's text form, made without a ``uuid.UUID`` object.

Every ``call_tool`` builds a turn with a fresh id; ``str(uuid.uuid4())`` (an object, an
int conversion, then formatting) cost more than the rest of building that turn.
"""

from __future__ import annotations

import os


def random_uuid() -> str:
    """A random RFC 4122 version-4 UUID as ``xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx``."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
