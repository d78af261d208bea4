"""JSON bytes as Codex (serde_json) writes them: compact separators, raw non-ASCII.

Key order is the caller's job (dict insertion order); this module only fixes the
separators and escaping so that equal structures give equal bytes.
"""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    """Serialise ``value`` the way serde_json does: ``{"a":1}``, non-ASCII kept raw."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
