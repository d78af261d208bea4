"""Wire types of the tools that wait for the frontend: arguments, events, answers.

``request_user_input`` arguments ignore unknown keys while
``request_permissions`` rejects them inside ``permissions``, as Codex's serde types do; both parse with
serde-style messages. Field names are the wire names (``isOther``, ``autoResolutionMs``)
so ``model_dump(mode="json")`` is Codex's JSON; ``None`` fields that Codex skips are
dropped by a wrap serializer.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from .events import EventMsg
from .serde import SerdeError
from .serde_json import SerdeJsonError, from_str, struct_shape


def _drop_none(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k in keys and v is None)}


# -- request_user_input -------------------------------------------------------------------
class QuestionOption(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)

    label: str
    description: str


class Question(BaseModel):
    """One question; ``options`` is omitted from the wire form when absent."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True, title="RequestUserInputQuestion")

    id: str
    header: str
    question: str
    isOther: bool = False
    isSecret: bool = False
    options: list[QuestionOption] | None = None

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "options")


class RequestUserInputArgs(BaseModel):
    """What the model sends. ``autoResolutionMs`` is a non-negative integer (u64)."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)

    questions: list[Question]
    autoResolutionMs: int | None = None


class RequestUserInputQuestions(BaseModel):
    """Codex 0.169's arguments: only ``questions`` (any other key, ``autoResolutionMs`` too, is ignored)."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True, title="RequestUserInputArgs")

    questions: list[Question]


class RequestUserInputEvent(EventMsg):
    """``request_user_input`` core event; ``autoResolutionMs`` omitted when absent.

    ``isBlocking`` is what Codex 0.169 sends: true in Plan mode (the turn cannot go on
    without the answer), false in Default mode (a question the model could do without).
    Either way the call waits for its answer; a prompt says which kind it is."""

    type: Literal["request_user_input"] = "request_user_input"
    call_id: str
    turn_id: str
    questions: list[Question]
    isBlocking: bool = True
    autoResolutionMs: int | None = None

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "autoResolutionMs")


# -- request_permissions ------------------------------------------------------------------
class FileSystemAccess(StrEnum):
    READ = "read"
    WRITE = "write"
    NONE = "none"


class PathRef(BaseModel):
    """``{"type":"path","path":...}`` or ``{"type":"glob_pattern","pattern":...}``."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    type: Literal["path", "glob_pattern"]
    path: str | None = None
    pattern: str | None = None

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "path", "pattern")


class FileSystemEntry(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    path: PathRef
    access: FileSystemAccess


class FileSystemPermissions(BaseModel):
    """Canonical entries; serialises in the legacy ``{read?, write?}`` form when possible."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    entries: tuple[FileSystemEntry, ...] = ()
    glob_scan_max_depth: int | None = None

    @classmethod
    def from_roots(cls, read: list[str] | None = None, write: list[str] | None = None) -> FileSystemPermissions:
        entries = [FileSystemEntry(path=PathRef(type="path", path=p), access=FileSystemAccess.READ) for p in read or []]
        entries += [
            FileSystemEntry(path=PathRef(type="path", path=p), access=FileSystemAccess.WRITE) for p in write or []
        ]
        return cls(entries=tuple(entries))

    def is_empty(self) -> bool:
        return not self.entries

    def legacy(self) -> dict[str, list[str]] | None:
        if self.glob_scan_max_depth is not None:
            return None
        out: dict[str, list[str]] = {}
        for entry in self.entries:
            if entry.path.type != "path" or entry.access == FileSystemAccess.NONE:
                return None
            out.setdefault(entry.access.value, []).append(entry.path.path or "")
        return {k: out[k] for k in ("read", "write") if k in out}

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        legacy = self.legacy()
        if legacy is not None:
            return legacy
        return _drop_none(handler(self), "glob_scan_max_depth")


class NetworkPermissions(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    enabled: bool | None = None


class PermissionProfile(BaseModel):
    """``RequestPermissionProfile``: both fields always serialised (null when absent)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    network: NetworkPermissions | None = None
    file_system: FileSystemPermissions | None = None

    def is_empty(self) -> bool:
        return self.network is None and self.file_system is None

    def intersect(self, granted: PermissionProfile) -> PermissionProfile:
        """Only what was both requested and granted survives: a grant never widens the request."""
        network = self.network if self.network is not None and granted.network == self.network else None
        file_system = None
        if self.file_system is not None and granted.file_system is not None:
            kept = tuple(e for e in self.file_system.entries if e in granted.file_system.entries)
            if kept:
                file_system = FileSystemPermissions(
                    entries=kept, glob_scan_max_depth=self.file_system.glob_scan_max_depth
                )
        return PermissionProfile(network=network, file_system=file_system)

    def union(self, other: PermissionProfile) -> PermissionProfile:
        network = other.network if other.network is not None else self.network
        entries = list(self.file_system.entries if self.file_system else ())
        for entry in other.file_system.entries if other.file_system else ():
            if entry not in entries:
                entries.append(entry)
        file_system = FileSystemPermissions(entries=tuple(entries)) if entries else None
        return PermissionProfile(network=network, file_system=file_system)


class PermissionGrantScope(StrEnum):
    TURN = "turn"
    SESSION = "session"


class RequestPermissionsResponse(BaseModel):
    """What the model receives: ``{"permissions":{...},"scope":"turn"}``."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    permissions: PermissionProfile
    scope: PermissionGrantScope = PermissionGrantScope.TURN
    strict_auto_review: bool = False

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.strict_auto_review:
            data.pop("strict_auto_review", None)
        return data


class RequestPermissionsEvent(EventMsg):
    """``request_permissions`` core event (``reason`` omitted when absent)."""

    type: Literal["request_permissions"] = "request_permissions"
    call_id: str
    turn_id: str
    environment_id: str
    started_at_ms: int
    reason: str | None = None
    permissions: PermissionProfile
    cwd: str

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "reason")


class ApprovalDecision(StrEnum):
    """How a person answers a command or file-change approval (Codex's app-server decisions,
    in codex_nb's spelling; ``APP_SERVER_DECISIONS`` maps them to the app-server's)."""

    APPROVE = "approve"
    APPROVE_FOR_SESSION = "approve_for_session"
    APPROVE_WITH_EXECPOLICY_AMENDMENT = "approve_with_execpolicy_amendment"
    """Approve, and add the proposed prefix rule so matching commands run without asking."""
    APPLY_NETWORK_POLICY_AMENDMENT = "apply_network_policy_amendment"
    """Keep a persistent allow/deny rule for the host the command reaches."""
    DECLINE = "decline"
    """Reject this call; the turn goes on (the model is told it was rejected)."""
    CANCEL = "cancel"
    """Reject this call and stop the turn."""


APP_SERVER_DECISIONS = {
    ApprovalDecision.APPROVE: "accept",
    ApprovalDecision.APPROVE_FOR_SESSION: "acceptForSession",
    ApprovalDecision.APPROVE_WITH_EXECPOLICY_AMENDMENT: "acceptWithExecpolicyAmendment",
    ApprovalDecision.APPLY_NETWORK_POLICY_AMENDMENT: "applyNetworkPolicyAmendment",
    ApprovalDecision.DECLINE: "decline",
    ApprovalDecision.CANCEL: "cancel",
}
"""codex_nb's decision -> the app-server's name for it (``CommandExecutionApprovalDecision``)."""


class NetworkPolicyAmendment(BaseModel):
    """A persistent rule for one host: ``allow`` or ``deny`` it in future requests."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    host: str
    action: Literal["allow", "deny"]


class NetworkApprovalContext(BaseModel):
    """The host (and protocol) a command wants to reach, for a managed-network approval."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    host: str
    protocol: str


class ApprovalOption(BaseModel):
    """One decision a prompt offers: ``key`` is what an answer names (the decision itself,
    or ``decision:N`` when the request offers several of one kind), ``label`` what a person reads."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    key: str
    decision: ApprovalDecision
    label: str
    execpolicy_amendment: list[str] | None = None
    """The proposed prefix rule (``approve_with_execpolicy_amendment``)."""
    network_policy_amendment: NetworkPolicyAmendment | None = None
    """The proposed host rule (``apply_network_policy_amendment``)."""

    @model_serializer(mode="wrap")
    def _ser(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "execpolicy_amendment", "network_policy_amendment")


class ExecApprovalRequestEvent(EventMsg):
    """``exec_approval_request``: the agent wants to run ``command`` and asks first."""

    type: Literal["exec_approval_request"] = "exec_approval_request"
    call_id: str
    turn_id: str
    command: str
    cwd: str | None = None
    reason: str | None = None
    available_decisions: list[ApprovalOption] = []
    """What the prompt offers, in the order the agent lists them (never empty once built)."""
    network_approval_context: NetworkApprovalContext | None = None


class FileChange(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    path: str
    kind: str
    """``add`` | ``delete`` | ``update``."""
    diff: str


class ApplyPatchApprovalRequestEvent(EventMsg):
    """``apply_patch_approval_request``: the agent wants to change these files and asks first."""

    type: Literal["apply_patch_approval_request"] = "apply_patch_approval_request"
    call_id: str
    turn_id: str
    changes: list[FileChange]
    reason: str | None = None
    grant_root: str | None = None
    available_decisions: list[ApprovalOption] = []


# -- MCP elicitations ---------------------------------------------------------------------
class ElicitationField(BaseModel):
    """One field of a form elicitation, read from its JSON Schema (primitive types only)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    name: str
    type: Literal["string", "number", "integer", "boolean", "enum", "multi_enum"]
    title: str | None = None
    description: str | None = None
    required: bool = False
    format: str | None = None
    """``email`` | ``uri`` | ``date`` | ``date-time`` (strings)."""
    options: list[QuestionOption] | None = None
    """``enum`` / ``multi_enum``: ``label`` is shown, ``description`` holds the value sent."""
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    default: Any = None


class McpToolApproval(BaseModel):
    """Codex asks through an elicitation whether an MCP tool may run (``_meta.codex_approval_kind``
    ``mcp_tool_call``); ``persist`` lists the longer approvals it offers (``session``, ``always``)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    tool_name: str | None = None
    tool_description: str | None = None
    tool_params: str | None = None
    """The call's arguments as JSON text (clipped), for a person to read."""
    persist: list[Literal["session", "always"]] = []


class ElicitationRequestEvent(EventMsg):
    """An MCP server asks the person: fill a form (``mode="form"``) or agree to visit a URL
    (``mode="url"``; codex_nb shows the URL and its domain and never opens it)."""

    type: Literal["elicitation_request"] = "elicitation_request"
    call_id: str
    turn_id: str
    server_name: str
    mode: Literal["form", "url"]
    message: str
    fields: list[ElicitationField] = []
    url: str | None = None
    domain: str | None = None
    elicitation_id: str | None = None
    tool_approval: McpToolApproval | None = None
    """Set when the form is Codex asking to run an MCP tool (its form has no fields)."""


class FrontendRequestResolved(EventMsg):
    """codex_nb event: a pending frontend request settled (mirrors ``serverRequest/resolved``).

    ``outcome`` is ``answered``, ``auto_resolved``, ``policy``, ``cancelled``,
    ``replaced`` or ``unanswerable``.
    """

    type: Literal["frontend_request_resolved"] = "frontend_request_resolved"
    request_id: str
    kind: str
    call_id: str
    outcome: str


# -- lenient / typed parsing ---------------------------------------------------------------
U64_FIELDS = frozenset({"autoResolutionMs", "glob_scan_max_depth"})
"""The integer fields Codex types as u64 (serde_json's shape checks their sign and kind)."""


def parse_frontend_args(model: type[BaseModel], text: str) -> Any:
    """serde_json's ``from_str`` for this module's argument types; raises ``SerdeError``."""
    try:
        data = from_str(struct_shape(model, U64_FIELDS), text)
    except SerdeJsonError as err:
        raise SerdeError(str(err)) from None
    try:
        return model.model_validate(data)
    except ValidationError as err:  # shapes the walker leaves to pydantic (literals, enums in unions)
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SerdeError(f"{first['msg']} at `{where}`") from None
