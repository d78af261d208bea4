"""Where the widget JS lives, and the tiny linker that turns it into one ``_esm`` string.

The JS sources are plain ES modules in ``js/`` (a source checkout) or ``codex_nb/_static``
(an installed wheel force-includes ``js/`` there). anywidget loads ``_esm`` from a blob URL,
where relative imports cannot resolve, so :func:`bundle_esm` inlines them: dependencies
first, in import order, each once. It understands exactly two import forms, one per line::

    import { a, b } from "./module.js";
    import NAME from "./data.json" with { type: "json" };

Anything else relative is an error (no bundler, no surprises). Top-level names must be
unique across the inlined modules; a test executes the bundle to check it.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

_JS_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w.-]+\.js)";?\s*$')
_JSON_IMPORT = re.compile(r'^import\s+(\w+)\s+from\s+"\./([\w.-]+\.json)"\s+with\s*\{\s*type:\s*"json"\s*\};?\s*$')
_RELATIVE_IMPORT = re.compile(r'^\s*import\b.*["\']\.\.?/')


class BundleError(ValueError):
    """A widget JS module uses an import form the linker does not support."""


def static_dir(package: Path | None = None) -> Path:
    """The directory holding the widget JS: ``codex_nb/_static`` in a wheel, else ``js/``."""
    package = package or Path(__file__).resolve().parent.parent
    for candidate in (package / "_static", package.parent / "js"):
        if (candidate / "protocol.json").is_file():
            return candidate
    raise FileNotFoundError(
        f"codex_nb widget assets not found in {package / '_static'} or {package.parent / 'js'}; "
        "reinstall codex_nb (the wheel must force-include js/ as codex_nb/_static)"
    )


def read_static(name: str) -> str:
    return (static_dir() / name).read_text(encoding="utf-8")


@functools.cache
def load_json(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(read_static(name))  # our own files, each a JSON object
    return loaded


def _link(name: str, done: set[str], out: list[str], *, entry: bool) -> None:
    if name in done:
        return
    done.add(name)
    body: list[str] = []
    for number, line in enumerate(read_static(name).splitlines(), 1):
        if match := _JS_IMPORT.match(line):
            if " as " in match.group(1):
                raise BundleError(f"{name}:{number}: renamed imports ('as') cannot be inlined; import the name itself")
            _link(match.group(2), done, out, entry=False)
            continue
        if match := _JSON_IMPORT.match(line):
            data = json.dumps(load_json(match.group(2)), separators=(",", ":"))
            body.append(f"const {match.group(1)} = {data};")
            continue
        if _RELATIVE_IMPORT.match(line):
            raise BundleError(f"{name}:{number}: unsupported relative import form: {line.strip()}")
        if not entry and line.startswith("export default"):
            raise BundleError(f"{name}:{number}: only the entry module may have a default export")
        body.append(line)
    out.append(f"// ---- {name} ----\n" + "\n".join(body))


@functools.cache
def bundle_esm(entry: str) -> str:
    """One ES module: ``entry`` with its relative imports inlined (cached per process)."""
    out: list[str] = []
    _link(entry, set(), out, entry=True)
    return "\n".join(out) + "\n"
