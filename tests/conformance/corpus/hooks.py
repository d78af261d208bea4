"""Command hooks from hooks.json: block by exit 2, JSON deny, rewrite, PostToolUse block,
failures that fail open, additionalContext, matchers, and trust."""

from __future__ import annotations

import json

from ..scenario import Scenario
from ._build import DONE, call

P = {"plan": [{"step": "a", "status": "pending"}]}


def sh(body: str) -> str:
    return "#!/bin/sh\ncat > /dev/null\n" + body + "\n"


def emit(obj: object) -> str:
    return sh(f"cat <<'JSON'\n{json.dumps(obj)}\nJSON")


def hooks(event: str, script: str = "hook.sh", matcher: str | None = "update_plan", **handler: object) -> dict:
    group: dict[str, object] = {"hooks": [{"type": "command", "command": f"{{scripts}}/{script}", **handler}]}
    if matcher is not None:
        group = {"matcher": matcher, **group}
    return {"hooks": {event: [group]}}


def hook(
    name: str,
    event: str,
    script: str,
    *,
    matcher: str | None = "update_plan",
    args: object = P,
    tool: str = "update_plan",
    trust: bool = True,
    extra: list | None = None,
    **handler: object,
) -> Scenario:
    return Scenario(
        name=name,
        hooks=hooks(event, matcher=matcher, **handler),
        scripts={"hook.sh": script},
        trust_hooks=trust,
        responses=[[call(tool, args), *(extra or [])], DONE],
        tags=("hooks",),
    )


DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "not today",
    }
}
REWRITE = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"plan": [{"step": "rewritten", "status": "completed"}]},
    }
}
CONTEXT_PRE = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "remember the tests"}}
CONTEXT_POST = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "plan noted"}}

TWO_PRE = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "update_plan",
                "hooks": [
                    {"type": "command", "command": "{scripts}/a.sh"},
                    {"type": "command", "command": "{scripts}/b.sh"},
                ],
            }
        ]
    }
}
PRE_AND_POST = {
    "hooks": {
        "PreToolUse": [{"matcher": "update_plan", "hooks": [{"type": "command", "command": "{scripts}/a.sh"}]}],
        "PostToolUse": [{"matcher": "update_plan", "hooks": [{"type": "command", "command": "{scripts}/b.sh"}]}],
    }
}

SCENARIOS = [
    Scenario(
        name="hook_two_pre_one_blocks",
        hooks=TWO_PRE,
        tags=("hooks",),
        scripts={"a.sh": sh("exit 0"), "b.sh": sh("echo 'second says no' >&2; exit 2")},
        responses=[[call("update_plan", P)], DONE],
    ),
    Scenario(
        name="hook_two_pre_contexts",
        hooks=TWO_PRE,
        tags=("hooks",),
        scripts={
            "a.sh": emit(CONTEXT_PRE),
            "b.sh": emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "two"}}),
        },
        responses=[[call("update_plan", P)], DONE],
    ),
    Scenario(
        name="hook_pre_and_post_contexts",
        hooks=PRE_AND_POST,
        tags=("hooks",),
        scripts={"a.sh": emit(CONTEXT_PRE), "b.sh": emit(CONTEXT_POST)},
        responses=[[call("update_plan", P)], DONE],
    ),
    Scenario(
        name="hook_pre_rewrite_then_post_block",
        hooks=PRE_AND_POST,
        tags=("hooks",),
        scripts={"a.sh": emit(REWRITE), "b.sh": emit({"decision": "block", "reason": "post veto"})},
        responses=[[call("update_plan", P)], DONE],
    ),
    Scenario(
        name="hook_pre_blocks_two_calls",
        hooks=hooks("PreToolUse"),
        tags=("hooks",),
        scripts={"hook.sh": sh("echo 'both blocked' >&2; exit 2")},
        responses=[[call("update_plan", P, "c1"), call("update_plan", P, "c2")], DONE],
    ),
    hook(
        "hook_pre_rewrite_to_invalid_plan",
        "PreToolUse",
        emit(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"plan": "not a list"},
                }
            }
        ),
    ),
    hook(
        "hook_pre_reads_stdin_tool_name",
        "PreToolUse",
        "#!/bin/sh\ngrep -q '\"tool_name\":\"update_plan\"' && { echo 'saw update_plan' >&2; exit 2; }\nexit 0\n",
    ),
    hook("hook_post_exit2_empty_stderr", "PostToolUse", sh("exit 2")),
    hook("hook_post_invalid_json", "PostToolUse", sh("echo '{broken'")),
    hook("hook_post_suppress_output", "PostToolUse", emit({"suppressOutput": True})),
    hook("hook_pre_status_message", "PreToolUse", sh("exit 0"), statusMessage="checking the plan"),
    hook("hook_pre_on_malformed_args", "PreToolUse", sh("echo 'no' >&2; exit 2"), args='{"plan": 5}'),
    hook(
        "hook_pre_on_request_user_input_plan_mode",
        "PreToolUse",
        sh("echo 'ask later' >&2; exit 2"),
        matcher="request_user_input",
        tool="request_user_input",
        args={
            "questions": [{"id": "q", "header": "h", "question": "q?", "options": [{"label": "a", "description": "b"}]}]
        },
    ),
    hook("hook_pre_noop", "PreToolUse", sh("exit 0")),
    hook("hook_pre_exit2_blocks", "PreToolUse", sh("echo 'no plans allowed' >&2; exit 2")),
    hook("hook_pre_exit2_empty_stderr", "PreToolUse", sh("exit 2")),
    hook("hook_pre_exit1_fails_open", "PreToolUse", sh("echo oops >&2; exit 1")),
    hook("hook_pre_json_deny", "PreToolUse", emit(DENY)),
    hook("hook_pre_legacy_block", "PreToolUse", emit({"decision": "block", "reason": "legacy no"})),
    hook("hook_pre_rewrite", "PreToolUse", emit(REWRITE)),
    hook(
        "hook_pre_allow_without_input",
        "PreToolUse",
        emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}),
    ),
    hook(
        "hook_pre_ask",
        "PreToolUse",
        emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}),
    ),
    hook("hook_pre_invalid_json", "PreToolUse", sh("echo '{not json'")),
    hook("hook_pre_plain_text", "PreToolUse", sh("echo hello")),
    hook("hook_pre_additional_context", "PreToolUse", emit(CONTEXT_PRE)),
    hook(
        "hook_pre_deny_with_context",
        "PreToolUse",
        emit({"hookSpecificOutput": {**DENY["hookSpecificOutput"], "additionalContext": "why denied"}}),
    ),
    hook("hook_pre_system_message", "PreToolUse", emit({"systemMessage": "heads up"})),
    hook("hook_pre_continue_false", "PreToolUse", emit({"continue": False, "stopReason": "stop"})),
    hook("hook_post_block", "PostToolUse", emit({"decision": "block", "reason": "result withheld"})),
    hook("hook_post_exit2", "PostToolUse", sh("echo 'post says no' >&2; exit 2")),
    hook("hook_post_continue_false", "PostToolUse", emit({"continue": False, "reason": "stopped here"})),
    hook("hook_post_additional_context", "PostToolUse", emit(CONTEXT_POST)),
    hook("hook_post_exit1_fails_open", "PostToolUse", sh("exit 1")),
    hook("hook_post_after_error_skipped", "PostToolUse", emit({"decision": "block", "reason": "x"}), args='{"plan":1}'),
    hook("hook_matcher_star", "PreToolUse", sh("echo star >&2; exit 2"), matcher="*"),
    hook("hook_matcher_none", "PreToolUse", sh("echo none >&2; exit 2"), matcher=None),
    hook("hook_matcher_alternatives", "PreToolUse", sh("echo alt >&2; exit 2"), matcher="foo|update_plan"),
    hook("hook_matcher_regex", "PreToolUse", sh("echo re >&2; exit 2"), matcher="^update_"),
    hook("hook_matcher_miss", "PreToolUse", sh("echo miss >&2; exit 2"), matcher="Bash"),
    hook("hook_unknown_tool_no_hook", "PreToolUse", sh("echo x >&2; exit 2"), matcher="*", tool="nope"),
    hook("hook_untrusted_does_not_run", "PreToolUse", sh("echo untrusted >&2; exit 2"), trust=False),
    hook("hook_timeout_fails_open", "PreToolUse", sh("sleep 5"), timeout=1),
    hook(
        "hook_pre_blocks_user_input_plan_mode",
        "PreToolUse",
        sh("echo nope >&2; exit 2"),
        matcher="request_user_input",
        tool="request_user_input",
        args={"questions": []},
    ),
]
