"""The notebook tools' settings: ``[codex_nb.notebook_tools]``.

The tools read, run and edit the live notebook, so they are off unless a person turns them on
(``enabled = true``); each tool then has its own switch (all on by default once enabled) and the
bounds every answer keeps to. Approval defaults follow Codex's: reading asks nothing, running
code and editing cells ask unless the table says otherwise.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

TOOL_NAMES = ("list_cells", "read_cell", "inspect_variable", "run_code", "insert_cell", "edit_cell", "run_cell")
"""Every notebook tool, in the order the model sees them."""
ASKING_TOOLS = ("run_code", "insert_cell", "edit_cell", "run_cell")
"""The tools that change the kernel or the document: each asks for approval unless allowed."""


class NotebookToolsSettings(BaseModel):
    """Keyword-only; ``Config(notebook_tools=NotebookToolsSettings(enabled=True))`` turns the tools on."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    enabled: bool = False
    """Register the ``notebook`` namespace at all."""
    tools: dict[str, bool] = Field(default_factory=dict)
    """Per-tool switches (``run_code = false`` leaves it out); a tool not named is on."""
    approve: dict[str, bool] = Field(default_factory=dict)
    """Per-tool approval: ``approve.run_code = false`` runs code without asking. Reading never asks."""
    max_output_chars: int = Field(default=20_000, ge=200, le=1_000_000)
    """The most text one answer carries; longer text keeps its head and tail around a marker."""
    max_image_bytes: int = Field(default=2 * 1024 * 1024, ge=1024, le=20 * 1024 * 1024)
    """A larger image output is replaced by a line saying so."""
    max_images: int = Field(default=4, ge=0, le=32)
    run_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    """``run_code``'s bound when the call gives none."""
    repr_timeout_seconds: float = Field(default=2.0, gt=0, le=60)
    """How long ``inspect_variable`` waits for a ``__repr__``."""
    frontend_timeout_seconds: float = Field(default=5.0, gt=0, le=120)
    """How long a document tool waits for the front end to answer before saying there is none."""

    def tool_enabled(self, name: str) -> bool:
        """Whether tool ``name`` (``run_code``, ``insert_cell``, ...) is in the tool plan: the table is
        enabled and no per-tool switch (``run_code = false``) turns that tool off."""
        return self.enabled and self.tools.get(name, True)

    def asks(self, name: str) -> bool:
        """Whether a call of ``name`` waits for a person's approval first: only the tools that run
        code or change the document ask, unless ``[codex_nb.notebook_tools.approve]`` says false."""
        return name in ASKING_TOOLS and self.approve.get(name, True)


def notebook_tools_from_toml(data: dict[str, Any]) -> NotebookToolsSettings:
    """``[codex_nb.notebook_tools]`` (``enabled``, per-tool ``run_code = false``, ``[...approve]``, bounds)."""
    own = data.get("codex_nb", {})
    table = own.get("notebook_tools", {}) if isinstance(own, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"[codex_nb.notebook_tools] must be a table, got {type(table).__name__}")
    switches = {k: v for k, v in table.items() if k in TOOL_NAMES}
    rest = {k: v for k, v in table.items() if k not in TOOL_NAMES}
    unknown = sorted(set(rest) - set(NotebookToolsSettings.model_fields) - {"tools"})
    if unknown:
        raise ConfigError(
            f"[codex_nb.notebook_tools] has unknown keys {unknown}; known: enabled, approve, the tool names "
            f"({', '.join(TOOL_NAMES)}) and the bounds ({', '.join(_BOUNDS)})"
        )
    for key, value in switches.items():
        if not isinstance(value, bool):
            raise ConfigError(f"codex_nb.notebook_tools.{key} must be true or false, got {value!r}")
    approve = rest.pop("approve", {})
    if not isinstance(approve, dict) or any(
        k not in ASKING_TOOLS or not isinstance(v, bool) for k, v in approve.items()
    ):
        raise ConfigError(
            f"[codex_nb.notebook_tools.approve] maps {', '.join(ASKING_TOOLS)} to true or false; got {approve!r}"
        )
    try:
        return NotebookToolsSettings(**rest, tools=switches, approve=approve)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors())
        raise ConfigError(f"[codex_nb.notebook_tools]: {problems}") from None


_BOUNDS = tuple(n for n in NotebookToolsSettings.model_fields if n not in ("enabled", "tools", "approve"))
