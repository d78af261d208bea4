"""Codex's config discovery: which ``config.toml`` files a session reads, in which order, and which count.

Codex 0.169 builds one effective config from layers, lowest precedence first
(``load_config_layers_state`` in codex-rs/config/src/loader/mod.rs upstream):

1. ``system``: ``/etc/codex/config.toml``.
2. ``user``: ``$CODEX_HOME/config.toml`` (``~/.codex`` when unset), then, with a profile,
   ``$CODEX_HOME/<profile>.config.toml`` on top of it (Codex's ``--profile``; the legacy
   ``profile = "x"`` key with ``[profiles.x]`` tables is an error in 0.169).
3. ``project``: every ``.codex/config.toml`` from the project root down to ``cwd``. The root is
   the nearest ancestor holding a ``project_root_markers`` entry (default ``.git``; a ``.git``
   directory without ``HEAD`` does not count, as the binary shows). A project layer counts
   only when trusted: ``[projects."<dir>"] trust_level = "trusted"`` for its own folder, else for
   the project root, else for the git repository root (``decision_for_dir``). An untrusted layer
   is still listed, with Codex's ``disabled_reason``, and contributes nothing.
4. ``session_flags``: ``-c key=value`` overrides (dotted keys, TOML values; a value that is not
   TOML is the raw string, as in Codex).

Tables merge key by key, anything else is replaced by the higher layer. Each leaf remembers
the layer that set it (``origins``), so a person can see where a setting came from.
Every file goes through the bounded reader (no FIFO, device or huge file is read).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ConfigError
from .files import read_text_file

SYSTEM_CONFIG_FILE = Path("/etc/codex/config.toml")
CONFIG_FILE = "config.toml"
DEFAULT_ROOT_MARKERS = (".git",)
PROJECT_DENYLIST = ("openai_base_url", "chatgpt_base_url", "model_provider", "model_providers", "notify", "otel")
"""Keys a project layer may not set (Codex drops them: a cloned repo must not redirect your model traffic)."""

LayerSource = Literal["system", "user", "project", "session_flags"]
_GATED = "project-local config, hooks, and exec policies"


@dataclass(frozen=True, kw_only=True)
class ConfigLayer:
    """One layer of the effective config: where it came from and what it set."""

    source: LayerSource
    path: Path | None
    """The file (system, user) or the ``.codex`` folder (project); None for session flags."""
    values: Mapping[str, Any] = field(default_factory=dict)
    profile: str | None = None
    disabled_reason: str | None = None
    """Why a project layer does not count (Codex's own words), None when it does."""
    exists: bool = True

    @property
    def folder(self) -> Path | None:
        """The folder a layer's ``hooks.json`` sits in."""
        if self.path is None:
            return None
        return self.path if self.source == "project" else self.path.parent

    @property
    def file(self) -> Path | None:
        """The ``config.toml`` this layer reads (inside the ``.codex`` folder for a project layer);
        None for session flags."""
        if self.path is None:
            return None
        return self.path / CONFIG_FILE if self.source == "project" else self.path

    @property
    def enabled(self) -> bool:
        """True when the layer counts; False for a project layer Codex would not trust (see
        ``disabled_reason``)."""
        return self.disabled_reason is None

    @property
    def label(self) -> str:
        """How a person reads where a setting came from: the source and its file
        (``user /home/me/.codex/config.toml``, with the profile when there is one), or
        ``session flags (-c overrides)``."""
        if self.source == "session_flags":
            return "session flags (-c overrides)"
        where = f"{self.source} {self.file}"
        return where + (f" (profile {self.profile})" if self.profile else "")


def codex_home_dir(codex_home: str | os.PathLike[str] | None) -> Path:
    """``codex_home``, else ``$CODEX_HOME``, else ``~/.codex`` (what Codex uses)."""
    if codex_home is not None:
        return Path(codex_home).expanduser()
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def load_layers(
    codex_home: Path,
    cwd: Path,
    *,
    profile: str | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    system_file: Path = SYSTEM_CONFIG_FILE,
) -> list[ConfigLayer]:
    """Every layer Codex 0.169 would read for a thread in ``cwd``, lowest precedence first."""
    flags = override_layer(overrides)
    layers = [file_layer("system", system_file)]
    user_file = codex_home / CONFIG_FILE
    layers.append(file_layer("user", user_file))
    if profile is not None:
        layers.append(profile_layer(codex_home, profile))
    merged = merge_layers([*layers, *([flags] if flags else [])])
    layers += project_layers(cwd.resolve(), merged, codex_home, user_file)
    if flags is not None:
        layers.append(flags)
    for layer in layers:
        if layer.enabled and "profile" in layer.values:
            name = layer.values["profile"]
            raise ConfigError(
                f"{layer.label}: legacy `profile = {_toml_repr(name)}` config is no longer supported; "
                f"use `--profile {name}` with `{name}.config.toml` instead (Codex 0.169): "
                f"Config.load(profile={name!r}) reads {codex_home / f'{name}.config.toml'}"
            )
    return layers


def file_layer(source: LayerSource, path: Path, *, profile: str | None = None) -> ConfigLayer:
    """A system or user layer: a missing file is an empty layer; a malformed one is an error naming it."""
    if not _exists(path):
        return ConfigLayer(source=source, path=path, profile=profile, exists=False)
    return ConfigLayer(source=source, path=path, values=parse_file(path), profile=profile)


def profile_layer(codex_home: Path, profile: str) -> ConfigLayer:
    if not isinstance(profile, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", profile) or profile.startswith("."):
        raise ConfigError(f"profile must be a plain name such as 'fast' (it names <name>.config.toml), got {profile!r}")
    path = codex_home / f"{profile}.config.toml"
    if not _exists(path):
        known = available_profiles(codex_home)
        listed = ", ".join(known) if known else f"none (no <name>.config.toml in {codex_home})"
        raise ConfigError(
            f"no profile {profile!r}: {path} does not exist; profiles in {codex_home}: {listed}. "
            f"A profile is a file <name>.config.toml next to config.toml"
        )
    return file_layer("user", path, profile=profile)


def available_profiles(codex_home: Path) -> list[str]:
    try:
        names = sorted(p.name for p in codex_home.iterdir() if p.name.endswith(".config.toml"))
    except OSError:
        return []
    return [n.removesuffix(".config.toml") for n in names if n != ".config.toml"][:100]


def parse_file(path: Path) -> dict[str, Any]:
    import tomllib  # only config users pay for the parser

    text = read_text_file(path, what="config file", error=ConfigError)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: {toml_error_position(err, text)}. Fix the TOML syntax in that file") from None


def toml_error_position(err: Exception, text: str) -> str:
    """tomllib's "... (at line 3, column 5)" as "line 3, column 5: ..." (the place first); an error
    "at end of document" is placed after the last line."""
    message = str(err)
    found = re.search(r"\(at line (\d+), column (\d+)\)$", message)
    if found is not None:
        return f"line {found[1]}, column {found[2]}: {message[: found.start()].strip()}"
    if message.endswith("(at end of document)"):
        lines = text.splitlines() or [""]
        return f"line {len(lines)}, column {len(lines[-1]) + 1}: {message.removesuffix('(at end of document)').strip()}"
    return f"does not parse: {message}"


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


# -- project layers --------------------------------------------------------------------------


def project_layers(cwd: Path, merged: Mapping[str, Any], codex_home: Path, user_file: Path) -> list[ConfigLayer]:
    markers = root_markers(merged)
    root = find_project_root(cwd, markers)
    repo = git_root(cwd)
    trust = _trust_levels(merged)
    dirs = [cwd, *cwd.parents]
    dirs = list(reversed(dirs[: dirs.index(root) + 1])) if root in dirs else [cwd]
    home = _resolved(codex_home)
    out = []
    for directory in dirs:
        dot_codex = directory / ".codex"
        if not dot_codex.is_dir() or _resolved(dot_codex) == home:
            continue
        level, key = trust_decision(directory, root, repo, trust)
        reason = disabled_reason(level, key, user_file)
        values: dict[str, Any] = {}
        file = dot_codex / CONFIG_FILE
        if _exists(file):
            try:
                values = parse_file(file)
            except ConfigError:
                if reason is None:
                    raise
                values = {}  # an untrusted layer is never read for its settings: a parse error there is not yours
        for key_name in PROJECT_DENYLIST:
            values.pop(key_name, None)
        out.append(ConfigLayer(source="project", path=dot_codex, values=values, disabled_reason=reason))
    return out


def root_markers(merged: Mapping[str, Any]) -> tuple[str, ...]:
    markers = merged.get("project_root_markers")
    if markers is None:
        return DEFAULT_ROOT_MARKERS
    if not isinstance(markers, list) or not all(isinstance(m, str) for m in markers):
        raise ConfigError(f"project_root_markers must be an array of strings, got {markers!r}")
    return tuple(markers)


def find_project_root(cwd: Path, markers: tuple[str, ...]) -> Path:
    """The nearest ancestor of ``cwd`` (itself included) holding a marker; ``cwd`` when none does."""
    if not markers:
        return cwd
    for directory in (cwd, *cwd.parents):
        if any(_is_marker(directory / m) for m in markers):
            return directory
    return cwd


def _is_marker(path: Path) -> bool:
    # A .git directory without HEAD (an empty sandbox mount point) is no repository: 0.169 skips it.
    if path.name == ".git" and path.is_dir():
        return _exists(path / "HEAD")
    return _exists(path)


def git_root(cwd: Path) -> Path | None:
    for directory in (cwd, *cwd.parents):
        if _is_marker(directory / ".git"):
            return directory
    return None


def _trust_levels(merged: Mapping[str, Any]) -> dict[str, str]:
    projects = merged.get("projects", {})
    if not isinstance(projects, dict):
        raise ConfigError(f'[projects] must be a table of "<path>" = {{ trust_level = ... }}, got {projects!r}')
    out = {}
    for key, entry in projects.items():
        level = entry.get("trust_level") if isinstance(entry, dict) else None
        if level is None:
            continue
        if level not in ("trusted", "untrusted"):
            raise ConfigError(f'projects."{key}".trust_level must be "trusted" or "untrusted", got {level!r}')
        out[key] = level
    return out


def _keys(path: Path) -> list[str]:
    """The spellings Codex looks a folder up by: the real path first, then the path as given."""
    real = str(_resolved(path))
    return [real] if real == str(path) else [real, str(path)]


def trust_decision(directory: Path, root: Path, repo: Path | None, trust: Mapping[str, str]) -> tuple[str | None, str]:
    """The trust level for ``directory``'s ``.codex`` and the key it was read from (or would be)."""
    for candidate in (directory, root, repo):
        if candidate is None:
            continue
        for key in _keys(candidate):
            if key in trust:
                return trust[key], key
    return None, _keys(repo if repo is not None else root)[0]


def disabled_reason(level: str | None, key: str, user_file: Path) -> str | None:
    """Codex 0.169's own text for an untrusted project layer."""
    if level == "trusted":
        return None
    if level == "untrusted":
        return (
            f"{key} is marked as untrusted in the effective configuration. To load {_GATED}, update its trust "
            f"setting. If that setting is managed by your organization, contact your administrator."
        )
    return f"To load {_GATED}, add {key} as a trusted project in {user_file}."


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


# -- overrides ---------------------------------------------------------------------------------


def override_layer(overrides: Mapping[str, Any] | Iterable[str] | None) -> ConfigLayer | None:
    """``-c`` overrides as one ``session_flags`` layer: a mapping of dotted key -> value (Python
    values), or ``"key=value"`` strings whose value is TOML (the raw text when it is not TOML)."""
    if overrides is None:
        return None
    if isinstance(overrides, str):
        raise ConfigError(f"overrides takes a list of 'key=value' strings or a dict, got the string {overrides!r}")
    pairs = list(overrides.items()) if isinstance(overrides, Mapping) else [split_override(o) for o in overrides]
    if not pairs:
        return None
    tree: dict[str, Any] = {}
    for key, value in pairs:
        set_dotted(tree, key, value)
    return ConfigLayer(source="session_flags", path=None, values=tree)


def split_override(text: Any) -> tuple[str, Any]:
    if not isinstance(text, str) or "=" not in text:
        raise ConfigError(f"an override is 'key=value' (as Codex's -c), got {text!r}; e.g. 'model=\"o3\"'")
    key, _, raw = text.partition("=")
    key = key.strip()
    if not key:
        raise ConfigError(f"override {text!r} has no key before '='; e.g. 'tools.update_plan.enabled=true'")
    return key, parse_override_value(raw.strip())


def parse_override_value(raw: str) -> Any:
    """TOML, else the raw string (Codex: 'If it fails to parse as TOML, the raw string is used')."""
    import tomllib

    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def set_dotted(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    if any(not p for p in parts):
        raise ConfigError(f"override key {key!r} has an empty part; write dotted keys such as 'features.hooks'")
    node = tree
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value


# -- merging and origins ------------------------------------------------------------------------


def merge_into(base: dict[str, Any], overlay: Mapping[str, Any]) -> None:
    """Codex's ``merge_toml_values``: tables merge recursively, anything else is replaced."""
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge_into(base[key], value)
        else:
            base[key] = _copy(value)


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def merge_layers(layers: Iterable[ConfigLayer]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for layer in layers:
        if layer.enabled:
            merge_into(out, layer.values)
    return out


def leaves(values: Mapping[str, Any] | list[Any], prefix: str = "") -> Iterable[str]:
    """Dotted leaf keys as Codex's ``origins`` spells them: parts joined by '.', no quoting, array
    elements by index (``project_root_markers.0``, ``hooks.PreToolUse.0.matcher``)."""
    items = values.items() if isinstance(values, Mapping) else enumerate(values)
    for key, value in items:
        dotted = f"{prefix}{key}"
        if isinstance(value, (Mapping, list)) and value:
            yield from leaves(value, dotted + ".")
        else:
            yield dotted


def origins(layers: Iterable[ConfigLayer]) -> dict[str, ConfigLayer]:
    out: dict[str, ConfigLayer] = {}
    for layer in layers:
        if layer.enabled:
            for key in leaves(layer.values):
                out[key] = layer
    return out


def _toml_repr(value: Any) -> str:
    import json

    return json.dumps(value) if isinstance(value, str) else repr(value)
