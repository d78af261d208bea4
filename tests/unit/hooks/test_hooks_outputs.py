"""Exit-code protocol and JSON output rules, exact Codex texts."""

from __future__ import annotations

import json

import pytest

from codex_nb.hooks.outputs import RawRun, parse_post, parse_pre


def pre(stdout: str = "", *, code: int | None = 0, stderr: str = ""):
    return parse_pre(RawRun(exit_code=code, stdout=stdout, stderr=stderr))


def post(stdout: str = "", *, code: int | None = 0, stderr: str = ""):
    return parse_post(RawRun(exit_code=code, stdout=stdout, stderr=stderr))


def entries(res):
    return [(e.kind, e.text) for e in res.entries]


def specific(**fields):
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}})


def test_exit_zero_empty_and_plain_text_are_noops():
    for out in ("", "   \n", "just some text"):
        res = pre(out)
        assert (res.status, res.entries, res.block_reason) == ("completed", [], None)


def test_permission_decision_deny_blocks():
    res = pre(specific(permissionDecision="deny", permissionDecisionReason="  do not run that "))
    assert res.status == "blocked"
    assert res.block_reason == "do not run that"
    assert entries(res) == [("feedback", "do not run that")]


def test_legacy_decision_block_blocks():
    res = pre(json.dumps({"decision": "block", "reason": "nope"}))
    assert (res.status, res.block_reason) == ("blocked", "nope")


def test_allow_with_updated_input_rewrites():
    res = pre(specific(permissionDecision="allow", updatedInput={"plan": []}))
    assert (res.status, res.updated_input, res.entries) == ("completed", {"plan": []}, [])


@pytest.mark.parametrize(
    ("output", "error"),
    [
        (specific(permissionDecision="allow"), "PreToolUse hook returned unsupported permissionDecision:allow"),
        (specific(permissionDecision="ask"), "PreToolUse hook returned unsupported permissionDecision:ask"),
        (specific(updatedInput={"a": 1}), "PreToolUse hook returned updatedInput without permissionDecision:allow"),
        (
            specific(permissionDecision="deny"),
            "PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason",
        ),
        (
            specific(permissionDecisionReason="why"),
            "PreToolUse hook returned permissionDecisionReason without permissionDecision",
        ),
        ('{"decision":"approve"}', "PreToolUse hook returned unsupported decision:approve"),
        ('{"decision":"block","reason":"  "}', "PreToolUse hook returned decision:block without a non-empty reason"),
        ('{"reason":"why"}', "PreToolUse hook returned reason without decision"),
        ('{"continue":false}', "PreToolUse hook returned unsupported continue:false"),
        ('{"stopReason":"x"}', "PreToolUse hook returned unsupported stopReason"),
        ('{"suppressOutput":true}', "PreToolUse hook returned unsupported suppressOutput"),
        ('{"decision": "block", ', "hook returned invalid pre-tool-use JSON output"),
        ("[1, 2]", "hook returned invalid pre-tool-use JSON output"),
        ('{"unknownKey": 1}', "hook returned invalid pre-tool-use JSON output"),
        ('{"continue": "yes"}', "hook returned invalid pre-tool-use JSON output"),
        ('{"hookSpecificOutput": {"permissionDecision": "deny"}}', "hook returned invalid pre-tool-use JSON output"),
    ],
)
def test_rejected_outputs_fail_open(output, error):
    res = pre(output)
    assert res.status == "failed"
    assert res.block_reason is None and res.updated_input is None
    assert entries(res) == [("error", error)]


def test_system_message_is_a_warning_and_context_is_kept_when_blocked():
    out = json.dumps(
        {
            "systemMessage": "careful",
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no",
                "additionalContext": "ctx",
            },
        }
    )
    res = pre(out)
    assert entries(res) == [("warning", "careful"), ("context", "ctx"), ("feedback", "no")]
    assert res.additional_contexts == ["ctx"]


def test_exit_two_blocks_with_trimmed_stderr():
    res = pre(code=2, stderr="\n  blocked by policy \n")
    assert (res.status, res.block_reason) == ("blocked", "blocked by policy")


def test_exit_two_without_stderr_fails_open():
    res = pre(code=2, stderr="  ")
    assert res.status == "failed" and res.block_reason is None
    assert entries(res) == [
        ("error", "PreToolUse hook exited with code 2 but did not write a blocking reason to stderr")
    ]


def test_other_exit_codes_fail_open():
    assert entries(pre(code=1)) == [("error", "hook exited with code 1")]
    assert entries(pre(code=127)) == [("error", "hook exited with code 127")]
    assert entries(pre(code=None)) == [("error", "hook exited without a status code")]


def test_exit_two_in_async_hook_is_not_a_block():
    res = parse_pre(RawRun(exit_code=2, stderr="x"), synchronous=False)
    assert res.block_reason is None and res.status == "failed"


# -- PostToolUse ------------------------------------------------------------------------


def test_post_block_decision_gives_feedback():
    res = post('{"decision":"block","reason":"bash output looked sketchy"}')
    assert res.status == "blocked" and res.feedback == ["bash output looked sketchy"]


def test_post_continue_false_stops_with_reason():
    res = post(
        json.dumps({"continue": False, "stopReason": "halt after bash output", "reason": "post-tool hook says stop"})
    )
    assert res.status == "stopped" and res.should_stop
    assert res.feedback == ["post-tool hook says stop"]
    assert entries(res) == [("stop", "halt after bash output")]


def test_post_continue_false_without_reason_synthesizes_feedback():
    res = post('{"continue": false}')
    assert res.feedback == ["PostToolUse hook stopped execution"]
    assert entries(res) == [("stop", "PostToolUse hook stopped execution")]


def test_post_exit_two_is_a_blocked_run_with_feedback():
    # Codex 0.169 reports the run as blocked (conformance hook_post_exit2)
    res = post(code=2, stderr="post hook says pause\n")
    assert res.status == "blocked" and res.feedback == ["post hook says pause"]


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ('{"suppressOutput": true}', "PostToolUse hook returned unsupported suppressOutput"),
        (
            '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"ok":true}}}',
            "PostToolUse hook returned unsupported updatedMCPToolOutput",
        ),
        ('{"decision":"block"}', "PostToolUse hook returned decision:block without a non-empty reason"),
        ('{"reason":"r"}', "PostToolUse hook returned reason without decision"),
        ('{"decision":"approve","reason":"r"}', "hook returned invalid post-tool-use JSON output"),
        ("{not json", "hook returned invalid post-tool-use JSON output"),
    ],
)
def test_post_rejected_outputs_fail_open(output, error):
    res = post(output)
    assert res.status == "failed" and res.feedback == []
    assert entries(res) == [("error", error)]


def test_post_exit_two_without_stderr():
    assert entries(post(code=2)) == [
        ("error", "PostToolUse hook exited with code 2 but did not write feedback to stderr")
    ]


def test_post_additional_context():
    res = post('{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Remember."}}')
    assert res.additional_contexts == ["Remember."] and entries(res) == [("context", "Remember.")]


def test_python_values_use_the_same_rules():
    assert parse_pre(RawRun(value=None, has_value=True)).status == "completed"
    res = parse_pre(RawRun(value={"decision": "block", "reason": "no"}, has_value=True))
    assert res.block_reason == "no"
    res = parse_pre(RawRun(value={"bogus": 1}, has_value=True))
    assert entries(res) == [("error", "hook returned invalid pre-tool-use JSON output")]
