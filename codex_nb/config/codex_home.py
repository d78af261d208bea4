"""``Config.load``: a person's own Codex setup (their ``$CODEX_HOME``, their project) as one ``Config``.

``layers`` finds and merges the files; this module turns the merged tables into a ``Config``,
checks each layer on its own first (so a bad value names the file, or the override, that set
it), gathers every enabled layer's hooks with Codex's ``source`` and real ``source_path``,
and describes where each setting came from (``describe``, used by ``repr`` and
``%codex_config``). Secrets never show: values under keys that name tokens, keys, headers or
environments are masked.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import CodexNbError, ConfigError
from .files import read_text_file
from .hooks import HooksConfig, HookSource, parse_hooks_json, parse_hooks_table
from .layers import ConfigLayer, codex_home_dir, load_layers, merge_layers, origins, set_dotted

_SECRET = re.compile(r"(token|secret|password|api_?key|authorization|bearer|headers|env)", re.IGNORECASE)
_ALIGN = 32
_MAX_SHOWN = 60
"""Settings ``describe`` lists (a huge config stays readable; the rest is counted)."""


def load_config(
    cls: Any,
    codex_home: str | os.PathLike[str] | None,
    cwd: str | os.PathLike[str] | None,
    profile: str | None,
    overrides: Mapping[str, Any] | Iterable[str] | None,
) -> Any:
    """A ``cls`` (``Config``, passed in: this module stands below it) from every layer Codex reads."""
    home = codex_home_dir(codex_home)
    where = Path(cwd).expanduser() if cwd is not None else Path.cwd()
    if not where.is_dir():
        raise ConfigError(f"cwd {where} is not a directory; give the folder the session works in")
    layers = load_layers(home, where.absolute(), profile=profile, overrides=overrides)
    for layer in layers:
        if layer.enabled:
            _check_layer(cls, layer)
    config = cls.from_dict(merge_layers(layers))
    config.hooks = layer_hooks(layers)
    config.layers = tuple(layers)
    config.origins = {key: layer.label for key, layer in origins(layers).items()}
    return config


def _check_layer(cls: Any, layer: ConfigLayer) -> None:
    """Parse one layer alone: an error then names the layer (and the line) that holds the bad value."""
    if layer.source == "session_flags":
        for key, value in _override_items(layer.values):
            single: dict[str, Any] = {}
            set_dotted(single, key, value)
            try:
                cls.from_dict(single)
            except CodexNbError as err:
                raise ConfigError(f"override {key}={json.dumps(value, default=str)}: {err}") from None
        return
    try:
        cls.from_dict(dict(layer.values))
    except CodexNbError as err:
        message = str(err).replace("<config.toml>: ", "")  # the inline-text placeholder: the file is named here
        raise ConfigError(f"{layer.file}{_line_of(layer, message)}: {message}") from None


def _override_items(values: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Each override as (dotted key, value): tables are walked, anything else is one value."""
    for key, value in values.items():
        if isinstance(value, Mapping) and value:
            yield from _override_items(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _line_of(layer: ConfigLayer, message: str) -> str:
    """``:N`` for the line that sets the key the message names (best effort: names in backticks or dotted)."""
    if layer.file is None:
        return ""
    try:
        text = read_text_file(layer.file, what="config file", error=ConfigError)
    except ConfigError:
        return ""
    names = [n.split(".")[-1] for n in re.findall(r"[A-Za-z_][\w.]*", message) if "." in n or "_" in n]
    for number, line in enumerate(text.splitlines(), start=1):
        key = line.split("=", 1)[0].strip().strip('"')
        if "=" in line and key and key in names:
            return f":{number}"
    return ""


def _get(tree: Mapping[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


_HOOK_SOURCES: dict[str, HookSource] = {"system": "system", "user": "user", "project": "project"}


def layer_hooks(layers: Iterable[ConfigLayer]) -> HooksConfig:
    """Every enabled layer's hooks, in layer order: its folder's ``hooks.json``, then its ``[hooks]``
    table. They come from files, so they run only once trusted; trust (``[hooks.state]``) is read from
    the system, user and override layers only: a project cannot vouch for its own hooks."""
    out = HooksConfig()
    seen: set[Path] = set()
    for layer in layers:
        if not layer.enabled or layer.source == "session_flags":
            continue
        source = _HOOK_SOURCES[layer.source]
        folder = layer.folder
        if folder is not None and folder not in seen:
            seen.add(folder)
            json_file = folder / "hooks.json"
            if json_file.exists():
                text = read_text_file(json_file, what="hooks file", error=ConfigError)
                out = out.merged(parse_hooks_json(text, source_path=str(json_file), source=source))
        table = layer.values.get("hooks", {})
        if isinstance(table, dict) and table:
            parsed = parse_hooks_table(table, source_path=str(layer.file), from_file=True, source=source)
            if layer.source == "project":
                parsed = HooksConfig(specs=parsed.specs, warnings=parsed.warnings)
            out = out.merged(parsed)
    for layer in layers:
        if layer.enabled and layer.source == "session_flags" and isinstance(layer.values.get("hooks"), dict):
            state = parse_hooks_table(
                {"state": layer.values["hooks"].get("state", {})}, source_path="-c overrides", from_file=True
            )
            out = out.merged(HooksConfig(state=state.state))
    return out


def describe(config: Any) -> str:
    """The layers read, low to high, then each setting with the layer it came from."""
    lines = ["layers (lowest precedence first):"]
    for layer in config.layers:
        state = "" if layer.exists else " (no file)"
        if layer.disabled_reason:
            state = f" (not loaded: {layer.disabled_reason})"
        lines.append(f"  {layer.label}{state}")
    merged = merge_layers(config.layers)
    keys = sorted(config.origins)
    lines.append(f"settings ({len(keys)}), each with the layer that set it:" if keys else "settings: none set")
    # aligned on the short keys: a long one (a project path) is not padded and does not widen the rest
    width = max((len(k) for k in keys[:_MAX_SHOWN] if len(k) <= _ALIGN), default=0)
    for key in keys[:_MAX_SHOWN]:
        lines.append(f"  {key.ljust(width)} = {_shown(key, _get(merged, key))}  <- {config.origins[key]}")
    if len(keys) > _MAX_SHOWN:
        lines.append(f"  ... {len(keys) - _MAX_SHOWN} more (config.origins has them all)")
    return "\n".join(lines)


def _shown(key: str, value: Any) -> str:
    if _SECRET.search(key):
        return "'***'"
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
