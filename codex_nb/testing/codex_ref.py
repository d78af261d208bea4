"""The pinned reference Codex: where its binary is and how to point it at a local server.

``.ci/setup`` npm-installs the version pinned in ``.ci/codex-version`` into the ignored folder
``.codex-ref/``. ``codex_binary()`` is the runtime's own resolver (``CODEX_BIN``, the pinned
install, ``PATH``; the NATIVE executable, never the node launcher), so a test runs exactly the
binary ``cx.CodexAppServer()`` would, and a test that ends the process it started leaves no
orphaned child behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..app_server import binary as _binary

REPO_ROOT = Path(__file__).resolve().parents[2]
VERSION_FILE = REPO_ROOT / ".ci" / "codex-version"
INSTALL_DIR = REPO_ROOT / ".codex-ref"


class CodexNotFound(_binary.CodexBinaryError, FileNotFoundError):
    """No usable Codex binary: set CODEX_BIN or run ``bash .ci/setup``."""


def pinned_codex_version() -> str:
    """The pinned ``@openai/codex`` version (``.ci/codex-version``); it must equal the protocol's."""
    try:
        return VERSION_FILE.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise CodexNotFound(f"{VERSION_FILE} is missing; it holds the pinned @openai/codex version") from None


def native_binary(install_dir: Path = INSTALL_DIR) -> Path:
    """Where this machine's platform package puts the native executable under an npm install folder."""
    try:
        return _binary.pinned_native_path(install_dir)
    except _binary.CodexBinaryError as err:
        raise CodexNotFound(str(err)) from None


def codex_binary() -> Path:
    """The Codex executable: ``$CODEX_BIN``, else the pinned install in ``.codex-ref/``, else PATH."""
    try:
        return _binary.codex_binary()
    except _binary.CodexBinaryError as err:
        raise CodexNotFound(str(err)) from None


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as a TOML value")


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _toml_tables(prefix: str, table: dict[str, Any], out: list[str]) -> None:
    scalars = {k: v for k, v in table.items() if not isinstance(v, dict)}
    if scalars or not table:
        out.append(f"[{prefix}]")
        out.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in scalars.items())
        out.append("")
    for key, value in table.items():
        if isinstance(value, dict):
            _toml_tables(f"{prefix}.{_toml_key(key)}", value, out)


def codex_config_toml(base_url: str, **overrides: Any) -> str:
    """``config.toml`` text for a Codex that samples from ``base_url`` (a local Responses server).

    Retries are off so a scripted fault shows at once; ``overrides`` replace or add
    top-level keys, and dict values become tables merged into the defaults.
    """
    config: dict[str, Any] = {
        "model": "gpt-5.1-codex",
        "model_provider": "local",
        "approval_policy": "never",
        "sandbox_mode": "read-only",
        "model_providers": {
            "local": {
                "name": "local",
                "base_url": base_url,
                "wire_api": "responses",
                "request_max_retries": 0,
                "stream_max_retries": 0,
            }
        },
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            merged = dict(config[key])
            merged.update(value)
            config[key] = merged
        else:
            config[key] = value
    out = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in config.items() if not isinstance(v, dict)]
    out.append("")
    for key, value in config.items():
        if isinstance(value, dict):
            _toml_tables(_toml_key(key), value, out)
    return "\n".join(out)


__all__ = ["CodexNotFound", "codex_binary", "codex_config_toml", "native_binary", "pinned_codex_version"]
