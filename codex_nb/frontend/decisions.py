"""The decisions a command or file-change approval offers, and reading an answer to one.

Codex's app-server lists a command approval's decisions in ``availableDecisions`` (for
example ``accept``, ``acceptWithExecpolicyAmendment`` with the proposed prefix rule, and
``cancel``); a file-change approval lists none, so it gets the four Codex documents for it.
Each becomes an ``ApprovalOption`` with a label a person can read and a ``key`` an answer
names. An answer must be one of the offered keys (or decision names), except that
``decline`` and ``cancel`` are always accepted: refusing is never more than was offered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..protocol.frontend import (
    APP_SERVER_DECISIONS,
    ApprovalDecision,
    ApprovalOption,
    NetworkPolicyAmendment,
)

MAX_OPTIONS = 16
"""Decisions one request may offer (a hostile server could list thousands)."""
MAX_RULE_TEXT = 500
"""Characters of a proposed rule shown in a label."""

_FROM_APP_SERVER = {v: k for k, v in APP_SERVER_DECISIONS.items()}
DEFAULT_DECISIONS = (
    ApprovalDecision.APPROVE,
    ApprovalDecision.APPROVE_FOR_SESSION,
    ApprovalDecision.DECLINE,
    ApprovalDecision.CANCEL,
)
"""What a request that lists no decisions offers (Codex's file-change approvals)."""
ALWAYS_ALLOWED = (ApprovalDecision.DECLINE, ApprovalDecision.CANCEL)


class DecisionError(ValueError):
    """An ``availableDecisions`` entry codex_nb cannot read."""


def _clip(text: str) -> str:
    return text if len(text) <= MAX_RULE_TEXT else text[:MAX_RULE_TEXT] + "..."


def label(decision: ApprovalDecision, *, what: str, rule: Sequence[str] | None = None, network: Any = None) -> str:
    """A person's wording of one decision (``what``: ``command`` or ``changes``)."""
    if decision == ApprovalDecision.APPROVE:
        return "Yes, run it once" if what == "command" else "Yes, apply them once"
    if decision == ApprovalDecision.APPROVE_FOR_SESSION:
        return (
            "Yes, and don't ask again for this command this session"
            if what == "command"
            else "Yes, and don't ask again for these files this session"
        )
    if decision == ApprovalDecision.APPROVE_WITH_EXECPOLICY_AMENDMENT:
        return f"Yes, and don't ask again for commands starting with `{_clip(' '.join(rule or ()))}`"
    if decision == ApprovalDecision.APPLY_NETWORK_POLICY_AMENDMENT:
        host = _clip(network.host) if network is not None else "this host"
        if network is not None and network.action == "deny":
            return f"No, and always block {host} (a saved rule)"
        return f"Yes, and always allow {host} (a saved rule)"
    if decision == ApprovalDecision.DECLINE:
        return "No, skip this call (the turn goes on)"
    return "No, and stop the turn"


def default_options(what: str) -> list[ApprovalOption]:
    return [ApprovalOption(key=d.value, decision=d, label=label(d, what=what)) for d in DEFAULT_DECISIONS]


def options_from_app_server(raw: Any, *, what: str) -> list[ApprovalOption]:
    """``availableDecisions`` (strings and one-key objects) -> options; absent or empty -> the defaults."""
    if raw is None or raw == []:
        return default_options(what)
    if not isinstance(raw, list):
        raise DecisionError(f"availableDecisions must be a list, got {type(raw).__name__}")
    if len(raw) > MAX_OPTIONS:
        raise DecisionError(f"availableDecisions lists {len(raw)} decisions; at most {MAX_OPTIONS} are shown")
    options: list[ApprovalOption] = []
    for entry in raw:
        option = _option(entry, what=what)
        same = sum(1 for o in options if o.decision == option.decision)
        if same:
            option = option.model_copy(update={"key": f"{option.decision.value}:{same + 1}"})
        options.append(option)
    return options


def _option(entry: Any, *, what: str) -> ApprovalOption:
    if isinstance(entry, str):
        decision = _FROM_APP_SERVER.get(entry)
        if decision is None or decision in (
            ApprovalDecision.APPROVE_WITH_EXECPOLICY_AMENDMENT,
            ApprovalDecision.APPLY_NETWORK_POLICY_AMENDMENT,
        ):
            raise DecisionError(f"unknown decision {entry!r} in availableDecisions")
        return ApprovalOption(key=decision.value, decision=decision, label=label(decision, what=what))
    if not isinstance(entry, Mapping) or len(entry) != 1:
        raise DecisionError(f"a decision must be a string or a one-key object, got {entry!r:.200}")
    ((name, body),) = entry.items()
    if name == "acceptWithExecpolicyAmendment":
        rule = (body or {}).get("execpolicy_amendment") if isinstance(body, Mapping) else None
        if not isinstance(rule, list) or not rule or not all(isinstance(r, str) for r in rule):
            raise DecisionError(f"acceptWithExecpolicyAmendment needs a list of strings, got {body!r:.200}")
        decision = ApprovalDecision.APPROVE_WITH_EXECPOLICY_AMENDMENT
        return ApprovalOption(
            key=decision.value,
            decision=decision,
            label=label(decision, what=what, rule=rule),
            execpolicy_amendment=rule,
        )
    if name == "applyNetworkPolicyAmendment":
        amendment = (body or {}).get("network_policy_amendment") if isinstance(body, Mapping) else None
        try:
            network = NetworkPolicyAmendment.model_validate(amendment)
        except Exception:  # pydantic.ValidationError: the message below says what was wrong
            raise DecisionError(
                f"applyNetworkPolicyAmendment needs {{host, action: allow|deny}}, got {body!r:.200}"
            ) from None
        decision = ApprovalDecision.APPLY_NETWORK_POLICY_AMENDMENT
        return ApprovalOption(
            key=decision.value,
            decision=decision,
            label=label(decision, what=what, network=network),
            network_policy_amendment=network,
        )
    raise DecisionError(f"unknown decision {name!r} in availableDecisions")


def to_app_server(option: ApprovalOption) -> Any:
    """The ``decision`` value the app-server reads for this option."""
    name = APP_SERVER_DECISIONS[option.decision]
    if option.execpolicy_amendment is not None:
        return {name: {"execpolicy_amendment": list(option.execpolicy_amendment)}}
    if option.network_policy_amendment is not None:
        return {name: {"network_policy_amendment": option.network_policy_amendment.model_dump(mode="json")}}
    return name


def choose(options: Sequence[ApprovalOption], response: Any) -> ApprovalOption:
    """The offered option an answer names: its key, its decision (codex_nb's or the
    app-server's spelling, first of that kind) or ``{"decision": ...}``; raises ``ValueError``."""
    value = response.get("decision") if isinstance(response, Mapping) and set(response) == {"decision"} else response
    if isinstance(value, str):
        decision = _FROM_APP_SERVER.get(value)
        name = decision.value if decision is not None else value
        for option in options:
            if option.key == value:
                return option
        for option in options:
            if option.decision.value == name:
                return option
        if name in {d.value for d in ALWAYS_ALLOWED}:
            decision = ApprovalDecision(name)
            return ApprovalOption(key=name, decision=decision, label=label(decision, what="command"))
    offered = ", ".join(repr(o.key) for o in options)
    raise ValueError(f"an approval answer must be one of the offered decisions {offered}; got {response!r:.200}")


def recommended(options: Sequence[ApprovalOption]) -> str:
    """The answer ``AnswerPolicy.recommended()`` gives: approve once if offered, else the first
    approving option, else decline."""
    for option in options:
        if option.decision == ApprovalDecision.APPROVE:
            return option.key
    for option in options:
        if option.decision not in ALWAYS_ALLOWED and option.decision != ApprovalDecision.APPLY_NETWORK_POLICY_AMENDMENT:
            return option.key
    return ApprovalDecision.DECLINE.value
