"""Where the built widget bundle lives: ``static/`` beside this module.

The widgets' ES modules are written in ``js/`` and bundled by esbuild (``node js/build.mjs``,
run by ``.ci/setup`` and by the wheel build) into one self-contained module and one stylesheet
per widget, plus the message protocol (``protocol.json``) the kernel side validates against.
The built files are committed, so a checkout, an sdist and a wheel all hold them and none needs
node; a test rebuilds them and fails when they are not current. anywidget reads a ``Path`` given
as ``_esm`` or ``_css`` (and, with ``ANYWIDGET_HMR=1``, watches it for a live rebuild).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

STATIC = Path(__file__).with_name("static")


def asset(name: str) -> Path:
    """The built file ``name`` of the widget bundle (``plan_checklist.js``, ``prompts.css`` ...)."""
    path = STATIC / name
    if not path.is_file():
        raise FileNotFoundError(
            f"codex_nb's widget bundle has no {name} in {STATIC}; in a checkout run `node js/build.mjs` "
            "(bash .ci/setup does), otherwise reinstall codex_nb"
        )
    return path


@functools.cache
def load_json(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(asset(name).read_text(encoding="utf-8"))  # our own files, each a JSON object
    return loaded


def turn_status_labels() -> dict[str, str]:
    """The one wording of each turn status, from ``protocol.json`` (the views read it too)."""
    labels: dict[str, str] = load_json("protocol.json")["turn_status_labels"]
    return labels
