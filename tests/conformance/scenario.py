"""A conformance scenario: everything one turn needs, played the same way on both sides.

A scenario is data: config.toml text, optional hooks (hooks.json plus scripts), the
collaboration mode, the scripted model responses and the scripted answers to server
requests. ``INTERRUPT`` as a response means: when that request arrives, interrupt the
turn (the model never answers it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BASE_CONFIG = """\
model = "{model}"
approval_policy = "{approval_policy}"
sandbox_mode = "read-only"
"""

UPDATE_PLAN_ON = """
[tools.update_plan]
enabled = true
"""

INTERRUPT = "interrupt"
PROMPT = "conformance prompt"


@dataclass(kw_only=True)
class Scenario:
    name: str
    responses: list[Any]
    """One entry per model request: a list of output items, or ``INTERRUPT``."""
    config: str = UPDATE_PLAN_ON
    """config.toml text appended to ``BASE_CONFIG`` (and the local provider)."""
    mode: str = "default"
    answers: list[Any] = field(default_factory=list)
    """Results for server requests, in order (app-server wire shapes)."""
    hooks: dict[str, Any] | None = None
    """hooks.json content; ``{script}`` in a command is replaced by the scripts folder."""
    scripts: dict[str, str] = field(default_factory=dict)
    trust_hooks: bool = True
    followup: list[Any] | None = None
    """Responses of a second turn (e.g. to see the history an interrupt left)."""
    skip: tuple[str, ...] = ()
    """Fields not compared, each with a reason in ``why``."""
    racy: tuple[str, ...] = ()
    """Fields the binary itself decides by timing (each with a reason in ``why``): left out of the
    binary-vs-recording drift check only; codex_nb is still compared with the recording."""
    why: str = ""
    tags: tuple[str, ...] = ()
    approval_policy: str = "never"
    dynamic_tools: list[dict[str, Any]] = field(default_factory=list)
    """app-server ``dynamicTools`` (``{type, name, description, inputSchema}``); codex_nb
    registers each as a ``SchemaTool``."""
    files: dict[str, str] | None = None
    """A Codex home and project tree (paths under the run folder: ``home/...``, ``work/...``; text
    may name ``<HOME>``, ``<WORK>``, ``<SCRIPTS>``; a path ending in ``/`` is a folder). A scenario
    with files is *layered*: codex_nb reads it with ``Config.load`` and both sides report the
    config layers, their origins and each hook's ``source``/``sourcePath``."""
    cwd: str = ""
    """The thread's working directory, under ``work/``."""
    overrides: tuple[str, ...] = ()
    """``-c key=value`` overrides (the binary's command line, ``Config.load(overrides=...)``)."""
    model: str = "gpt-5.1-codex"
    provider: str = ""
    """Extra lines of the local provider's ``[model_providers.local]`` table (both sides)."""
    routes: dict[str, Any] | None = None
    """The provider's other endpoints (``alpha/search``, ``images/generations``): path -> the JSON
    answer. With routes (or ``provider``) codex_nb talks to the same local server, and the
    bodies each side POSTs there are compared (``routes``)."""
    mcp_tools: list[dict[str, Any]] | None = None
    """The tools/list of one stdio MCP server ``sch`` (tests/mcp_servers/schema_server.py serves
    them byte for byte); both sides start it from ``[mcp_servers.sch]``."""

    @property
    def layered(self) -> bool:
        return self.files is not None or bool(self.overrides)

    @property
    def config_toml(self) -> str:
        return BASE_CONFIG.format(approval_policy=self.approval_policy, model=self.model) + self.config
