"""Regenerate ``protocol.json`` from the installed Codex binary (see the package docstring).

With ``--release BIN`` (repeated: one binary per release of the supported range, as
``.ci/codex-compat-install`` installs them) the file covers the range: ``range.merge`` makes what
the releases disagree on optional and notes the release that added it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..._process.capped import run_capped
from ..binary import binary_version, codex_binary
from . import release_range
from . import CLIENT_REQUESTS, NOTIFICATIONS, SCHEMA_FILE, SERVER_REQUESTS


def _load_all(out: Path) -> dict[str, Any]:
    """Every definition of every generated file, flattened. A file's own type wins over the
    copies other files embed (those may differ in titles and descriptions only)."""
    own: dict[str, Any] = {}
    embedded: dict[str, Any] = {}
    files = [p for p in out.rglob("*.json") if not p.name.startswith("codex_app_server_protocol")]
    for path in sorted(files):
        doc = json.loads(path.read_text())
        for name, body in doc.pop("definitions", {}).items():
            embedded.setdefault(name, body)
        doc.pop("$schema", None)
        own[path.stem] = doc
    return {**embedded, **own}


def _methods(flat: dict[str, Any], union: str) -> dict[str, str]:
    out = {}
    for variant in flat[union]["oneOf"]:
        method = variant["properties"]["method"]["enum"][0]
        params = variant["properties"].get("params", {}).get("$ref", "").rsplit("/", 1)[-1]
        out[method] = params
    return out


def _reach(flat: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    keep: dict[str, Any] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep[name] = flat[name]
        text = json.dumps(flat[name])
        todo += [part.split('"')[0] for part in text.split('"$ref": "#/definitions/')[1:]]
    return dict(sorted(keep.items()))


def generated(codex: Path) -> dict[str, Any]:
    """Every definition ``codex app-server generate-json-schema --experimental`` prints, flattened."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [str(codex), "app-server", "generate-json-schema", "--experimental", "--out", tmp]
        done = run_capped(argv, timeout=300, limit=1 << 20)
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode or -1, argv, done.stdout, done.stderr)
        return _load_all(Path(tmp))


def build(codex: Path, releases: Sequence[Path] = ()) -> dict[str, Any]:
    version = binary_version(codex)
    flat = generated(codex)
    others = {binary_version(path): generated(path) for path in releases}
    others.pop(version, None)
    all_methods = {
        v: {u: _methods(f, u) for u in ("ClientRequest", "ServerNotification", "ServerRequest")}
        for v, f in {**others, version: flat}.items()
    }
    client, notes, server = (all_methods[version][u] for u in ("ClientRequest", "ServerNotification", "ServerRequest"))
    table: dict[str, Any] = {
        "client_requests": {
            m: {"params": client[m], "response": client[m].replace("Params", "Response")} for m in CLIENT_REQUESTS
        },
        "notifications": {m: notes[m] for m in NOTIFICATIONS},
        "server_requests": {
            m: {"params": server[m], "response": server[m].replace("Params", "Response")} for m in SERVER_REQUESTS
        },
    }
    roots = [
        t
        for group in table.values()
        for entry in group.values()
        for t in ([entry] if isinstance(entry, str) else entry.values())
    ]
    missing = [r for r in roots if r not in flat]
    if missing:
        raise SystemExit(f"the generated schema lacks {missing}")
    definitions = _reach(flat, roots)
    if others:
        definitions = release_range.merge(version, definitions, others, _reach)
    return {
        "codex_version": version,
        "command": "codex app-server generate-json-schema --experimental --out DIR",
        "regenerate": "python -m codex_nb.app_server.schema --release BIN ... (.ci/compat --schema)",
        "range": release_range.summary(version, all_methods),
        **table,
        "definitions": definitions,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codex", type=Path, default=None, help="the native codex binary (default: resolver)")
    parser.add_argument("--out", type=Path, default=SCHEMA_FILE)
    parser.add_argument(
        "--release", type=Path, action="append", default=[], help="the native binary of another release of the range"
    )
    args = parser.parse_args(argv)
    data = build(args.codex or codex_binary(), args.release)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    span = data["range"]
    print(
        f"wrote {args.out} ({len(data['definitions'])} definitions, Codex {data['codex_version']}, "
        f"range {span['oldest']}..{span['newest']} from {len(span['releases'])} releases)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
