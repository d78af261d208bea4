"""Text renderings of runtime events, matching the Codex TUI (codex-rs/tui/src/history_cell/plans.rs).

``text`` lays out the "Updated Plan" history cell; ``wrap`` is the Rust ``textwrap``
emulation it needs to wrap byte for byte like the TUI.
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
