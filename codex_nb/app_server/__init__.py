"""A client for the real Codex: ``codex app-server`` over JSON-RPC 2.0 on stdio.

Modules:

* ``binary``: find ``codex`` and check its protocol version.
* ``history_pages``: a thread's history read page by page (``ThreadHistory``), newest first.
* ``app_server_errors``: the client's errors.
* ``goals``: Codex's thread goals on the wire: read a peer's goal, check a person's arguments.
* ``goal_run``: a thread's goal and a run that follows its continuation turns (``run_goal``).
* ``notifications``: app-server notifications as codex_nb events.
* ``permission_profiles``: permission profiles between camelCase v2 and our types.
* ``process``: the ``codex app-server`` subprocess.
* ``server_requests``: server-to-client requests the notebook answers.
* ``rpc``: JSON-RPC 2.0 over stdio.
* ``schema/``: the app-server JSON Schema subset we validate against.
* ``server``: ``CodexAppServer``: start, handshake, threads.
* ``thread``: ``CodexThread``: one real thread as an event source.
* ``thread_verbs``: rewind, compact, rename, archive, unarchive and delete a thread.
* ``versions``: the supported Codex range and the features each release offers.

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/``, ``rollouts/`` and
``cassettes/`` (above ``tools/``, which it may import with everything below); ``runtime/`` and the
layers above may import it.
"""

from .binary import CodexBinaryError, CodexVersionError, CodexVersionWarning, codex_binary, supported_range
from .app_server_errors import (
    AppServerError,
    AppServerExited,
    AppServerProtocolError,
    AppServerRpcError,
    AppServerTimeout,
)
from .history_pages import HistoryError, HistoryPage, ThreadHistory
from .notifications import AppServerNotification
from .server import CodexAppServer
from .goal_run import GoalRunResult, GoalsDisabledError, GoalStalledError, GoalTurn
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
    "CodexVersionError",
    "CodexVersionWarning",
    "GoalRunResult",
    "GoalTurn",
    "GoalsDisabledError",
    "GoalStalledError",
    "HistoryError",
    "HistoryPage",
    "ThreadHistory",
    "codex_binary",
    "supported_range",
]
