"""A client for the real Codex: ``codex app-server`` over JSON-RPC 2.0 on stdio."""

from .binary import PROTOCOL_VERSION, CodexBinaryError, codex_binary
from .errors import AppServerError, AppServerExited, AppServerProtocolError, AppServerRpcError, AppServerTimeout
from .events import AppServerNotification
from .server import CodexAppServer
from .thread import AppServerTurnHandle, AppServerTurnResult, CodexThread

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
