"""The pinned ACP agents for tests and notebooks.

``ACP_AGENTS``: the agent suite's agents of three vendors (``.ci/acp-agents``): the current
codex-acp (``@agentclientprotocol/codex-acp``, Codex app-server inside), Claude Code
(``@agentclientprotocol/claude-agent-acp``) and Gemini CLI (``--experimental-acp``), each with the env
that runs it offline against the stand-in of the model API it speaks.

The legacy agent, npm ``@zed-industries/codex-acp``, kept for the ACP client tests:

codex-acp is a native build of Codex with an ACP front (it links Codex itself and
needs no separate ``codex`` binary); it reads ``CODEX_HOME/config.toml``, so pointed
at a local ``ResponsesServer`` it runs whole prompts offline with no key. The version
lives in ``.ci/codex-acp-version``; ``.ci/setup`` installs it into ``.acp-agents/``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._process.npm_binary import NpmBinary, resolve
from dataclasses import dataclass
from .codex_ref import REPO_ROOT

if TYPE_CHECKING:
    from .responses_server import ResponsesServer

VERSION_FILE = REPO_ROOT / ".ci" / "codex-acp-version"
INSTALL_DIR = REPO_ROOT / ".acp-agents"
CODEX_ACP_MODEL = "gpt-5.4"
"""A model codex-acp 0.16.0 has metadata for (others make it print a fallback warning)."""


class CodexAcpNotFound(FileNotFoundError):
    """No usable codex-acp: set CODEX_ACP_BIN or run ``bash .ci/setup``."""


def pinned_codex_acp_version() -> str:
    """The pinned ``@zed-industries/codex-acp`` version (``.ci/codex-acp-version``)."""
    try:
        return VERSION_FILE.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise CodexAcpNotFound(f"{VERSION_FILE} is missing; it holds the pinned codex-acp version") from None


@lru_cache(maxsize=1)
def codex_acp_spec() -> NpmBinary:
    """How codex-acp is found: the same checks and error texts as the Codex binary's."""
    return NpmBinary(
        name="codex-acp",
        package="@zed-industries/codex-acp",
        env_var="CODEX_ACP_BIN",
        version=pinned_codex_acp_version(),
        native_path=lambda _triple: "bin/codex-acp",
        error=CodexAcpNotFound,
        setup_folder=".acp-agents",
    )


def codex_acp_binary() -> Path:
    """``$CODEX_ACP_BIN``, else the native binary of the pinned install, else ``codex-acp`` on PATH."""
    return resolve(codex_acp_spec(), [INSTALL_DIR])


def write_codex_acp_home(server: ResponsesServer, path: str | Path, **overrides: Any) -> Path:
    """A ``CODEX_HOME`` for codex-acp on ``server``: approvals on request, ``update_plan`` on."""
    settings: dict[str, Any] = {
        "model": CODEX_ACP_MODEL,
        "approval_policy": "on-request",
        "tools": {"update_plan": {"enabled": True}},
    }
    settings.update(overrides)
    return server.write_codex_home(path, **settings)


# -- the agent suite's agents: three vendors, each offline against its stand-in --------------------
PINS_FILE = REPO_ROOT / ".ci" / "acp-agents"
CODEX_MODEL = "gpt-5.5"
"""A model Codex 0.166 (inside codex-acp 2.6) has metadata for."""
CLAUDE_MODEL = "claude-stand-in"
CLAUDE_SMALL_MODEL = "claude-stand-in-small"
"""Claude Code's small fast model (titles, command summaries): the stand-in answers it in the background."""
GEMINI_MODEL = "gemini-2.5-pro"
"""Gemini CLI 0.61 offers its ``write_todos`` tool with this model (not with its default gemini-3.1)."""


QWEN_MODEL = "qwen3-coder-plus"
"""The model Qwen Code asks the stand-in for (any name: the Responses stand-in serves every model)."""


class AcpAgentNotFound(FileNotFoundError):
    """A pinned ACP agent is not installed: run ``bash .ci/setup`` (or install its npm package)."""


@dataclass(frozen=True, kw_only=True)
class AcpAgentSpec:
    """One pinned ACP agent: its npm package, how it starts, the model API it speaks, the env that
    points it at a local stand-in only (no key, no network, telemetry and update checks off)."""

    name: str
    package: str
    vendor: str
    entry: str
    """The node script inside the package."""
    args: tuple[str, ...] = ()
    api: str
    """``responses`` (``ResponsesServer``), ``anthropic`` (``AnthropicServer``) or ``gemini`` (``GeminiServer``)."""

    @property
    def version(self) -> str:
        """The pinned version (``.ci/acp-agents``)."""
        pins = pinned_acp_agents()
        if self.package not in pins:
            raise AcpAgentNotFound(
                f"{PINS_FILE} pins no version of {self.package}; add a line '{self.package} VERSION'"
            )
        return pins[self.package]

    def package_dir(self) -> Path:
        return INSTALL_DIR / "node_modules" / self.package

    def command(self) -> list[str]:
        """``[node, script, *args]`` of the pinned install; ``AcpAgentNotFound`` saying how to get it."""
        import json
        import shutil

        node = shutil.which("node")
        script = self.package_dir() / self.entry
        hint = f"run `bash .ci/setup` (it installs {self.package}@{self.version} into .acp-agents/)"
        if node is None:
            raise AcpAgentNotFound(f"{self.name} needs node on PATH; install Node.js 20 or later, then {hint}")
        if not script.is_file():
            raise AcpAgentNotFound(f"{self.name} is not installed ({script} is missing); {hint}")
        installed = json.loads((self.package_dir() / "package.json").read_text(encoding="utf-8"))["version"]
        if installed != self.version:
            raise AcpAgentNotFound(f"{self.name} {installed} is installed but {self.version} is pinned; {hint}")
        return [node, str(script), *self.args]

    def server(self, script: Any, *, background: Callable[[dict[str, Any]], Any] | None = None, **options: Any) -> Any:
        """The stand-in of this agent's model API serving ``script`` (not started).

        The agent's own side requests (a title, a loop check) are answered in the background
        whatever ``background`` a caller adds: the caller's answers first, then the agent's. An
        agent sends some of them after the prompt has ended (codex-acp names a session once its
        first turn completed), while its client is still closing it, so a caller's background
        that replaced the agent's would let them take script entries now and then."""
        if self.api == "anthropic":
            from .anthropic_server import AnthropicServer

            return AnthropicServer(script, background=_either(background, claude_background), **options)
        if self.api == "gemini":
            from .gemini_server import GeminiServer

            return GeminiServer(script, background=_either(background, gemini_background), **options)
        from .responses_server import ResponsesServer

        own = codex_background if self.name == "codex-acp" else None
        return ResponsesServer(script, background=_either(background, own), **options)

    def env(self, server: Any, home: str | Path) -> dict[str, str]:
        """The agent's environment on ``server``, its config written under ``home`` (a fresh folder)."""
        import os

        home = Path(home)
        home.mkdir(parents=True, exist_ok=True)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_BROWSER": "1"}
        env.update(_AGENT_ENV[self.name](server, home))
        return env


def _codex_env(server: Any, home: Path) -> dict[str, str]:
    codex_home = write_codex_acp_home(
        server,
        home / "codex",
        model=CODEX_MODEL,
        check_for_update_on_startup=False,
        analytics={"enabled": False},
        feedback={"enabled": False},
    )
    native = sorted((INSTALL_DIR / "node_modules" / "@openai").glob("codex-*/vendor/*/bin/codex"))
    return {
        "CODEX_HOME": str(codex_home),
        "OPENAI_API_KEY": "sk-local",
        # the native Codex beside the launcher: no node process between codex-acp and codex app-server
        "CODEX_PATH": str(native[0]) if native else "codex",
        # "workspace-write" asks the person; codex-acp's default mode "agent" sends approvals to
        # Codex's automatic reviewer (Guardian) instead. The person switches modes in the session.
        "INITIAL_AGENT_MODE": "workspace-write",
    }


def _claude_env(server: Any, home: Path) -> dict[str, str]:
    import json
    import os

    # With no defaultMode, claude-agent-acp starts a session in "auto", where a classifier model
    # decides each tool call instead of the person: "default" asks the person, as a notebook should.
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "default"}}), encoding="utf-8")
    env = {
        "ANTHROPIC_BASE_URL": server.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-local",
        "ANTHROPIC_MODEL": CLAUDE_MODEL,
        "ANTHROPIC_SMALL_FAST_MODEL": CLAUDE_SMALL_MODEL,
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": CLAUDE_SMALL_MODEL,
        "CLAUDE_CONFIG_DIR": str(config),
        # one switch for the auto-updater, telemetry, error reporting and the bug command
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    if os.geteuid() == 0:  # Claude Code refuses root unless told it runs in a sandbox (CI containers)
        env["IS_SANDBOX"] = "1"
    return env


def _gemini_env(server: Any, home: Path) -> dict[str, str]:
    import json

    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": GEMINI_MODEL},
        "useWriteTodos": True,
    }
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return {"GOOGLE_GEMINI_BASE_URL": server.base_url, "GEMINI_API_KEY": "local", "GEMINI_TELEMETRY_ENABLED": "false"}


def _qwen_env(server: Any, home: Path) -> dict[str, str]:
    import json

    settings = {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "disableAutoUpdate": True, "disableUpdateNag": True},
        "model": {"name": QWEN_MODEL},
        # Qwen Code 0.24 keeps its plan in todo_write (sent to the client as ACP plans) only when
        # this is on; its managed memory would ask the model more after each turn, in the background,
        # "default" asks the person; Qwen Code's own default, "auto", asks a classifier model instead
        "tools": {"todoWrite": {"enabled": True}, "approvalMode": "default"},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
        # after each turn it would ask the model what the person might type next
        "ui": {"enableFollowupSuggestions": False},
    }
    (home / ".qwen").mkdir(parents=True, exist_ok=True)
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-local"}


_AGENT_ENV = {
    "codex-acp": _codex_env,
    "claude-agent-acp": _claude_env,
    "gemini-cli": _gemini_env,
    "qwen-code": _qwen_env,
}


def _either(
    first: Callable[[dict[str, Any]], Any] | None, then: Callable[[dict[str, Any]], Any] | None
) -> Callable[[dict[str, Any]], Any] | None:
    """A background answering with ``first``'s answer, else with ``then``'s."""
    if first is None or then is None:
        return first or then

    def answer(body: dict[str, Any]) -> Any:
        found = first(body)
        return found if found is not None else then(body)

    return answer


def codex_background(body: dict[str, Any]) -> Any:
    """Requests on another model than the session's use no script entry: codex-acp names a session by
    an ephemeral Codex thread on its title model (``gpt-5.6-luna``) once the first turn completed."""
    from ..protocol.items import assistant_message

    return [assistant_message("Stand-in title")] if body.get("model") not in (None, CODEX_MODEL) else None


def claude_background(body: dict[str, Any]) -> Any:
    """Claude Code's small-model requests (a title, a summary of a command's output) and its one-token
    probes use no script entry."""
    from .anthropic_server import AnthropicServer

    # max_tokens 1 is a probe, never a turn: claude-agent-acp 0.101 validates the model it sets on a
    # forked or resumed session that way ("Hi"), as Claude Code checks a key or a quota
    if body.get("model") == CLAUDE_SMALL_MODEL or body.get("max_tokens") == 1:
        return [AnthropicServer.text("Stand-in summary")]
    return None


def gemini_background(body: dict[str, Any]) -> Any:
    """Gemini CLI's JSON side questions (its model router, next-speaker checks) use no script entry."""
    from .gemini_server import GeminiServer

    config = body.get("generationConfig") or {}
    if (
        config.get("responseJsonSchema")
        or config.get("responseSchema")
        or config.get("responseMimeType") == "application/json"
    ):
        return [GeminiServer.text('{"reasoning": "stand-in", "next_speaker": "user", "model_choice": "pro"}')]
    return None


ACP_AGENTS: dict[str, AcpAgentSpec] = {
    spec.name: spec
    for spec in (
        AcpAgentSpec(
            name="codex-acp",
            package="@agentclientprotocol/codex-acp",
            vendor="OpenAI",
            entry="dist/index.js",
            api="responses",
        ),
        AcpAgentSpec(
            name="claude-agent-acp",
            package="@agentclientprotocol/claude-agent-acp",
            vendor="Anthropic",
            entry="dist/index.js",
            api="anthropic",
        ),
        AcpAgentSpec(
            name="gemini-cli",
            package="@google/gemini-cli",
            vendor="Google",
            entry="bundle/gemini.js",
            args=("--experimental-acp",),
            api="gemini",
        ),
        AcpAgentSpec(
            name="qwen-code",
            package="@qwen-code/qwen-code",
            vendor="Alibaba (Qwen)",
            entry="cli.js",
            # Qwen Code speaks several model APIs; the Responses API is the one codex-acp's
            # stand-in already serves
            args=("--acp", "--auth-type", "openai-responses"),
            api="responses",
        ),
    )
}
"""The agents of the agent suite, by name."""


def pinned_acp_agents() -> dict[str, str]:
    """``{package: version}`` of ``.ci/acp-agents``."""
    try:
        lines = PINS_FILE.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise AcpAgentNotFound(f"{PINS_FILE} is missing; it pins the agent suite's ACP agents") from None
    return dict(line.split() for line in lines if line.strip() and not line.startswith("#"))


def acp_agent(name: str) -> AcpAgentSpec:
    """The pinned agent ``name`` (``codex-acp``, ``claude-agent-acp``, ``gemini-cli``, ``qwen-code``)."""
    try:
        return ACP_AGENTS[name]
    except KeyError:
        raise KeyError(f"no pinned ACP agent {name!r}; the agents are {', '.join(ACP_AGENTS)}") from None


__all__ = [
    "ACP_AGENTS",
    "AcpAgentNotFound",
    "AcpAgentSpec",
    "CodexAcpNotFound",
    "acp_agent",
    "claude_background",
    "codex_background",
    "codex_acp_binary",
    "gemini_background",
    "pinned_acp_agents",
    "pinned_codex_acp_version",
    "write_codex_acp_home",
]
