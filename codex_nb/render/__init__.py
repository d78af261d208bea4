"""Text renderings of runtime events, matching the Codex TUI (codex-rs/tui/src/history_cell/plans.rs).

``text`` lays out the "Updated Plan" history cell; ``wrap`` is the Rust ``textwrap``
emulation it needs to wrap byte for byte like the TUI.

Modules:

* ``images``: thumbnails of images a turn showed the model.
* ``text``: the "Updated Plan" cell as plain and ANSI text.
* ``wrap``: the Rust ``textwrap`` emulation the cell needs.

Layer: the top, with ``render/``, ``widgets/``, ``extension/`` and ``agent_server/``, which may import
one another; it may import every layer below, and no lower layer imports it.
"""

from .text import (
    coerce_plan_args,
    plan_lines,
    raw_plan_lines,
    render_plan_ansi,
    render_plan_text,
)
from .wrap import display_width

__all__ = [
    "coerce_plan_args",
    "display_width",
    "plan_lines",
    "raw_plan_lines",
    "render_plan_ansi",
    "render_plan_text",
]
