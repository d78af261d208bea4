"""The live notebook document the notebook tools use: how ``runtime/`` reaches a widget it cannot import.

The document a person has open is reached through a widget (``widgets.notebook_bridge``), and
``tools/`` and ``runtime/`` stand below the widgets: they never import them. The package root,
which may import anything, names the factory here when ``codex_nb`` is imported; a session with
the notebook tools on calls it when a tool first needs the document, so the widget stack
(ipywidgets, anywidget) loads only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

live_document: Callable[[float], Any] | None = None
"""``live_document(frontend_timeout)``: a ``NotebookDocument`` for the page this kernel serves."""
