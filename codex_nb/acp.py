"""Deprecated: ``codex_nb.acp`` is now ``codex_nb.acp_server`` (kept for one release).

The old name read like the ACP *client* (``codex_nb.acp_client``, codex_nb driving another
agent); this module only forwards to the server, importing or running it with a
DeprecationWarning that names the new home. ``python -m codex_nb.acp ...`` still serves.
"""

from __future__ import annotations

import sys
import warnings

from .acp_server import CodexNbAgent, serve, server

MESSAGE = "codex_nb.acp is deprecated; use codex_nb.acp_server (python -m codex_nb.acp_server)"

__all__ = ["CodexNbAgent", "serve"]

if __name__ == "__main__":
    # stacklevel 1: the warning is attributed to __main__, which Python's default filters show
    warnings.warn(MESSAGE, DeprecationWarning, stacklevel=1)
    from .acp_server.__main__ import main

    sys.exit(main())
else:
    warnings.warn(MESSAGE, DeprecationWarning, stacklevel=2)

# ``from codex_nb.acp.server import ...`` keeps working: the one server module, under its old name too
sys.modules.setdefault(f"{__package__}.acp.server", server)
