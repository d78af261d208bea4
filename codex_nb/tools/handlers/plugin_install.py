"""Plugin install suggestions: ``list_available_plugins_to_install`` and ``request_plugin_install``.

Codex 0.169 (``codex-rs/core/src/tools/handlers/list_available_plugins_to_install.rs``,
``request_plugin_install.rs``) offers them when ``[features] tool_suggest``, ``apps`` and
``plugins`` are on (Codex's defaults) and there are install candidates. Codex's candidates
come from its plugin marketplace and ChatGPT connectors, which do not exist offline; here
they are listed in the config::

    [[codex_nb.install_candidates]]
    id = "calendar@openai"
    name = "Calendar"
    description = "Read and create calendar events."
    tool_type = "plugin"          # or "connector"
    mcp_server_names = ["calendar"]

``request_plugin_install`` asks the person (the prompts widget, or the headless answer
policy) with a two-option question -- ``Install`` / ``Not now`` -- and answers the model with
Codex's JSON: ``completed``, ``user_confirmed``, ``tool_type``, ``action_type``, ``tool_id``,
``tool_name``, ``suggest_reason``. codex_nb installs nothing itself: ``completed`` is true
when the person confirmed (installing is theirs to do in their Codex).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...protocol.frontend import Question, QuestionOption, RequestUserInputEvent
from ...protocol.wire import dumps
from ...frontend.requests import Outcome, RequestKind
from ..arguments import parse_object, require_str
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec
from .ask import ask

if TYPE_CHECKING:
    from ...config import Config

LIST_NAME = "list_available_plugins_to_install"
REQUEST_NAME = "request_plugin_install"
LIST_DESCRIPTION = (
    "List the plugins and connectors that can be installed to help with the user's request. Call it "
    "before `request_plugin_install`."
)
REQUEST_DESCRIPTION = (
    "# Request plugin/connector install\nUse this tool only after `list_available_plugins_to_install` returns a "
    "plugin or connector that exactly matches the user's explicit request.\nDo not use it for adjacent capabilities, "
    "broad recommendations, or tools that merely seem useful. Pass the returned `tool_type` through directly, and "
    "pass the returned `id` as `tool_id`.\nIMPORTANT: DO NOT call this tool in parallel with other tools."
)
ONLY_INSTALL = 'plugin install requests currently support only action_type="install"'
EMPTY_REASON = "suggest_reason must not be empty"
UNKNOWN_TOOL = "tool_id must match one of the discoverable tools returned by list_available_plugins_to_install"
ROOT_ONLY = "request_plugin_install can only be used by the root thread"
INSTALL, NOT_NOW = "Install", "Not now"


def install_candidates(config: Config) -> list[dict[str, Any]]:
    """The configured candidates in Codex's listing form, sorted by name then id."""
    own = config.extra.get("codex_nb", {}) if isinstance(config.extra, dict) else {}
    raw = own.get("install_candidates", []) if isinstance(own, dict) else []
    from ...errors import ConfigError

    if not isinstance(raw, list):
        raise ConfigError("[[codex_nb.install_candidates]] must be an array of tables")
    out = []
    for i, entry in enumerate(raw):
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("id"), str)
            or not isinstance(entry.get("name"), str)
        ):
            raise ConfigError(f"codex_nb.install_candidates[{i}] needs string `id` and `name`, got {entry!r}")
        tool_type = entry.get("tool_type", "plugin")
        if tool_type not in ("plugin", "connector"):
            raise ConfigError(
                f'codex_nb.install_candidates[{i}].tool_type must be "plugin" or "connector", got {tool_type!r}'
            )
        out.append(
            {
                "id": entry["id"],
                "name": entry["name"],
                "description": str(entry.get("description", ""))[:240],
                "tool_type": tool_type,
                "has_skills": bool(entry.get("has_skills", False)),
                "mcp_server_names": list(entry.get("mcp_server_names", [])),
                "app_connector_ids": list(entry.get("app_connector_ids", [])),
            }
        )
    return sorted(out, key=lambda c: (c["name"], c["id"]))


def plugin_install_tools(config: Config) -> list[Tool]:
    features = config.extra.get("features", {}) if isinstance(config.extra, dict) else {}
    features = features if isinstance(features, dict) else {}
    if not all(features.get(key, True) is not False for key in ("tool_suggest", "apps", "plugins")):
        return []
    candidates = install_candidates(config)
    if not candidates:
        return []
    return [ListAvailablePluginsTool(candidates), RequestPluginInstallTool(candidates)]


class ListAvailablePluginsTool(Tool):
    def __init__(self, candidates: list[dict[str, Any]]) -> None:
        super().__init__(LIST_NAME, supports_parallel=True)
        self.candidates = candidates

    def spec(self) -> dict[str, Any]:
        return function_spec(
            LIST_NAME, LIST_DESCRIPTION, {"type": "object", "properties": {}, "additionalProperties": False}
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(f"{LIST_NAME} handler received unsupported payload")
        result = {"tools": self.candidates}
        return ToolOutput(body=dumps(result), code_mode_result=result)


class RequestPluginInstallTool(Tool):
    def __init__(self, candidates: list[dict[str, Any]]) -> None:
        super().__init__(REQUEST_NAME)
        self.candidates = candidates

    def spec(self) -> dict[str, Any]:
        return function_spec(
            REQUEST_NAME,
            REQUEST_DESCRIPTION,
            {
                "type": "object",
                "properties": {
                    "action_type": {"type": "string", "description": 'Suggested action for the tool. Use "install".'},
                    "suggest_reason": {
                        "type": "string",
                        "description": (
                            "Concise one-line user-facing reason why this plugin or connector can help with the current "
                            "request."
                        ),
                    },
                    "tool_id": {"type": "string", "description": "Connector or plugin id to suggest."},
                    "tool_type": {
                        "type": "string",
                        "description": ('Type of discoverable tool to suggest. Use "connector" or "plugin".'),
                    },
                },
                "required": ["tool_type", "action_type", "tool_id", "suggest_reason"],
                "additionalProperties": False,
            },
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(f"{REQUEST_NAME} handler received unsupported payload")
        if not invocation.turn.is_root_thread:
            raise RespondToModel(ROOT_ONLY)
        args = _parse(invocation.payload_text)
        if args["action_type"] != "install":
            raise RespondToModel(ONLY_INSTALL)
        reason = args["suggest_reason"].strip()
        if not reason:
            raise RespondToModel(EMPTY_REASON)
        candidate = next(
            (c for c in self.candidates if c["id"] == args["tool_id"] and c["tool_type"] == args["tool_type"]), None
        )
        if candidate is None:
            raise RespondToModel(UNKNOWN_TOOL)
        question = Question(
            id="install",
            header="Install",
            question=f"Install {candidate['name']}? {reason}",
            options=[
                QuestionOption(label=INSTALL, description=f"Install the {candidate['tool_type']} {candidate['name']}"),
                QuestionOption(label=NOT_NOW, description="Continue without it"),
            ],
        )
        event = RequestUserInputEvent(call_id=invocation.call_id, turn_id=invocation.turn.turn_id, questions=[question])
        settlement = await ask(invocation, RequestKind.USER_INPUT, event, REQUEST_NAME)
        if settlement.outcome == Outcome.UNANSWERABLE:
            raise RespondToModel(str(settlement.response))
        answers = settlement.response.get("answers", {}) if isinstance(settlement.response, dict) else {}
        chosen = (answers.get("install") or {}).get("answers") or []
        confirmed = settlement.outcome not in (Outcome.CANCELLED, Outcome.REPLACED) and INSTALL in chosen
        result = {
            "completed": confirmed,
            "user_confirmed": confirmed,
            "tool_type": candidate["tool_type"],
            "action_type": "install",
            "tool_id": candidate["id"],
            "tool_name": candidate["name"],
            "suggest_reason": reason,
        }
        return ToolOutput(body=dumps(result), code_mode_result=result)


def _parse(text: str) -> dict[str, str]:
    raw = parse_object(text, "RequestPluginInstallArgs")
    return {key: require_str(raw, key) for key in ("tool_type", "action_type", "tool_id", "suggest_reason")}
