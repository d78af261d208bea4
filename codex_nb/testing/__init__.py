"""Strict fakes and real local servers shipped in the package for tests and notebooks.

``ScriptedModel`` is re-exported from here; ``RecordingSubscriber`` keeps the ordered
event log of a session; ``ResponsesServer`` serves scripted Responses-API streams over
real HTTP on 127.0.0.1; ``codex_binary()`` finds the pinned reference Codex. The server
modules load on first use so ``import codex_nb`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .recording import ModelRequest, RecordingSubscriber, ScriptedModel

if TYPE_CHECKING:
    from .codex_ref import CodexNotFound, codex_binary, codex_config_toml, pinned_codex_version
    from .responses_server import CutStream, Garbage, HttpError, ResponsesServer, ResponsesServerError, Stall

_LAZY = {
    "CodexNotFound": "codex_ref",
    "codex_binary": "codex_ref",
    "codex_config_toml": "codex_ref",
    "pinned_codex_version": "codex_ref",
    "CutStream": "responses_server",
    "Garbage": "responses_server",
    "HttpError": "responses_server",
    "ResponsesServer": "responses_server",
    "ResponsesServerError": "responses_server",
    "Stall": "responses_server",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'codex_nb.testing' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CodexNotFound",
    "CutStream",
    "Garbage",
    "HttpError",
    "ModelRequest",
    "RecordingSubscriber",
    "ResponsesServer",
    "ResponsesServerError",
    "ScriptedModel",
    "Stall",
    "codex_binary",
    "codex_config_toml",
    "pinned_codex_version",
]
