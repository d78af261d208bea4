"""A client for the real Codex: ``codex app-server`` over JSON-RPC 2.0 on stdio."""

from .binary import CodexBinaryError, codex_binary
from .errors import AppServerError, AppServerExited, AppServerProtocolError, AppServerRpcError, AppServerTimeout
from .events import AppServerNotification
from .server import CodexAppServer
from .thread import AppServerTurnHandle, AppServerTurnResult, CodexThread


def __getattr__(name: str) -> str:
    # read from schema/protocol.json on first use, not when the package is imported
    if name == "PROTOCOL_VERSION":
        from .binary import protocol_version

        return protocol_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PROTOCOL_VERSION",
    "AppServerError",
    "AppServerExited",
    "AppServerNotification",
    "AppServerProtocolError",
    "AppServerRpcError",
    "AppServerTimeout",
    "AppServerTurnHandle",
    "AppServerTurnResult",
    "CodexAppServer",
    "CodexBinaryError",
    "CodexThread",
    "codex_binary",
]
