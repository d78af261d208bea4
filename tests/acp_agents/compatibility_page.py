"""Write docs/agents.md's tables from the agent suite's results, not by hand.

    .venv/bin/python tests/acp_agents/compatibility_page.py

runs ``tests/acp_agents/test_agents.py`` against the pinned agents (``bash .ci/setup`` installs
them) with ``CODEX_NB_AGENT_REPORT`` set, reads what each check saw and whether it passed
(pytest's JUnit XML), and replaces the text between the page's markers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PAGE = ROOT / "docs" / "agents.md"
BEGIN, END = "<!-- agent-tables:begin -->", "<!-- agent-tables:end -->"
CHECKS = {
    "test_initialize_capabilities_modes_and_sessions": "initialize, capabilities, modes, process group ended",
    "test_a_turn_plan_permission_tool_call_and_message": "plan -> checklist, permission, tool call, message, cassette replay",
    "test_stop_cancels_the_pending_permission_and_shows_no_late_update": "Stop with a pending permission",
    "test_modes_and_past_sessions_list_fork_resume_load": "set_mode, session list/fork/resume/load",
    "test_client_files_and_terminals_are_used_as_each_agent_chooses": "the client's fs and terminals offered",
    "test_options_are_read_and_plan_mode_set_from_python": "session.options, Plan mode and effort set with set_option",
    "test_a_question_reaches_the_person_and_their_answer_the_model": "a question (form elicitation) answered, the model reads it",
    "test_a_write_outside_the_session_folder_is_shown_as_outside_before_the_person_answers": "a write outside the session folder",
    "test_compaction_title_and_close_reach_the_transcript_and_the_agent": "/compact, the session title, session/close",
    "test_a_subagent_reaches_the_transcript_and_the_timeline": "a subagent the model starts, in the transcript and the timeline",
    "test_a_proposed_plan_approved_in_plan_answers_is_implemented": "a proposed plan approved in PlanAnswers, the agent implements it",
    "test_a_proposed_plan_revised_then_rejected_keeps_planning": "a proposed plan revised (the note is the next prompt), then rejected",
}

OFFERED_ONLY = {
    "test_a_question_reaches_the_person_and_their_answer_the_model",
    "test_a_proposed_plan_approved_in_plan_answers_is_implemented",
    "test_a_proposed_plan_revised_then_rejected_keeps_planning",
}
"""Checks run only on the agents that offer what they check (``EXPECTED[agent]`` says which)."""

META = {"agent", "check", "package", "vendor", "version"}


def run_suite(report: Path, junit: Path) -> int:
    env = dict(os.environ, CODEX_NB_AGENT_REPORT=str(report))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(HERE / "test_agents.py")]
    return subprocess.run([*command, f"--junitxml={junit}"], cwd=ROOT, env=env, check=False).returncode


def junit_cases(junit: Path) -> Iterator[tuple[ET.Element, str]]:
    """Each test case of pytest's JUnit XML with its state: passed, failed or skipped."""
    for case in ET.parse(junit).getroot().iter("testcase"):
        state = "failed" if case.find("failure") is not None or case.find("error") is not None else "passed"
        yield case, "skipped" if case.find("skipped") is not None else state


def write_between(page: Path, begin: str, end: str, body: str) -> None:
    """Replace the text between ``page``'s ``begin`` and ``end`` markers with ``body``."""
    head, _, rest = page.read_text(encoding="utf-8").partition(begin)
    _, _, tail = rest.partition(end)
    page.write_text(f"{head}{begin}\n{body}\n{end}{tail}", encoding="utf-8")


def outcomes(junit: Path) -> dict[tuple[str, str], str]:
    """``(test, agent) -> passed | failed | skipped``."""
    out = {}
    for case, state in junit_cases(junit):
        name, _, agent = case.get("name", "").partition("[")
        out[(name, agent.rstrip("]"))] = state
    return out


def _notices(check: dict | None) -> str:
    """What the compaction check saw: the compaction records, the session's title, session/close sent."""
    if not check:
        return "-"
    compactions = ", ".join(
        f"{status}" + (f" ({text!r})" if text else "") for _kind, status, text in check["compaction"]
    )
    return (
        f"compaction: {compactions or 'none'}; title: {check['title']!r}; "
        f"session/close: {'offered and sent' if check['close'] else 'not offered'}"
    )


def tables(facts: list[dict], results: dict[tuple[str, str], str]) -> str:
    by_agent: dict[str, dict[str, dict]] = {}
    for line in facts:
        by_agent.setdefault(line["agent"], {})[line["check"]] = line
    parts = []
    for agent, checks in by_agent.items():
        first = next(iter(checks.values()))
        init, turn = checks.get("initialize", {}), checks.get("turn", {})
        stop, sessions = checks.get("stop", {}), checks.get("sessions", {})
        rows = [
            ("Package", f"`{first['package']}` {first['version']} ({first['vendor']})"),
            ("Reports itself as", f"{init.get('agent_info')} on ACP protocol version {init.get('protocol_version')}"),
            ("Session methods offered", ", ".join(init.get("session", [])) or "none"),
            ("Modes (the suite's)", f"{', '.join(init.get('modes', []))} (runs in `{init.get('current_mode')}`)"),
            ("Model picker (config option)", "yes" if init.get("models") else "no"),
            ("Options (`session.options`)", ", ".join(checks.get("options", {}).get("options", [])) or "-"),
            (
                "Plan updates in the turn",
                f"{turn.get('plan_updates')} (priorities {', '.join(turn.get('priorities', [])) or '-'})",
            ),
            (
                "Permission options",
                "; ".join(
                    f"{label} ({kind})"
                    for label, kind in zip(
                        turn.get("permission_options", []), turn.get("permission_kinds", []), strict=False
                    )
                ),
            ),
            ("Questions (form elicitation)", _questions(checks.get("questions"))),
            ("Plan review (Approve / Revise / Reject)", _review(checks.get("plan review"), checks.get("plan kept"))),
            ("Shell command tool call kind", str(turn.get("command_kind"))),
            ("Thoughts shown", "yes" if turn.get("thought") else "no"),
            ("Cassette replay equals the live turn", "yes" if checks.get("cassette", {}).get("replayed") else "no"),
            (
                "Stop",
                f"{stop.get('status')}, stopReason {stop.get('stop_reason')}, permission {', '.join(stop.get('permission', []))}"
                + (" (ended here after the grace)" if stop.get("ended_here") else ""),
            ),
            (
                "Automatic review (codex-acp's Auto review mode)",
                ", ".join(checks.get("auto_review", {}).get("review_titles", [])) or "-",
            ),
            (
                "Client requests with fs and terminals offered",
                ", ".join(checks.get("client_capabilities", {}).get("client_requests", [])) or "none",
            ),
            (
                "Its file-writing tool creates a new file",
                {True: "yes", False: "no (the call fails)"}.get(
                    checks.get("client_capabilities", {}).get("creates_files"), "-"
                ),
            ),
            ("A write outside the session folder", _outside(checks.get("outside_write"))),
            ("Compaction, title, session/close", _notices(checks.get("notices"))),
            ("Subagents (`subagent_update`)", _subagent(checks.get("subagent"))),
            ("Past sessions", ", ".join(f"{k}: {v}" for k, v in sessions.items() if k not in META) or "-"),
        ]
        lines = [f"### {agent}", "", "| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
        lines += ["", "| Check (tests/acp_agents/test_agents.py) | Result |", "|---|---|"]
        lines += [
            f"| `{test}`: {what} | {results.get((test, agent), 'not offered by the agent' if test in OFFERED_ONLY else 'not run')} |"
            for test, what in CHECKS.items()
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _subagent(facts: dict | None) -> str:
    """What the subagent check saw: the subagent's name, its states, its timeline record at the prompt's end."""
    if facts is None:
        return "-"
    if not facts.get("subagents"):
        return "none sent"
    _name, status, text = facts["record"]
    name = repr(facts["name"]) if facts["name"] else "untitled (named by its id)"
    return f"{name}, states {' -> '.join(facts['states'])}; at the prompt's end {status}: {text}"


def _outside(facts: dict | None) -> str:
    if facts is None:
        return "-"
    if not facts.get("asked"):
        return f"refused by the agent itself, nothing asked (turn {facts.get('status')})"
    marked = "the file named and marked outside" if facts.get("marked") else "NOT marked outside"
    return f"asked, {marked}; rejected, not written (turn {facts.get('status')})"


def _questions(facts: dict | None) -> str:
    if facts is None:
        return "not offered by the agent"
    shown = f"asked as a question card ({', '.join(facts.get('options', []))})" if facts.get("asked") else "never asked"
    return f"{shown}; the model read the answer: {'yes' if facts.get('model_read_answer') else 'no'}"


def _review(approved: dict | None, kept: dict | None) -> str:
    if approved is None:
        return "not offered by the agent"
    said = f"asks with options {'; '.join(approved.get('options', []))}"
    implements = "yes" if approved.get("approved_implements") else "no"
    after = f"kept planning, the prompt ends {kept.get('status')}" if kept else "kept planning: not run"
    return f"{said}; approved, the agent implements: {implements}; {after}"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        report, junit = Path(tmp) / "report.jsonl", Path(tmp) / "junit.xml"
        code = run_suite(report, junit)
        facts = (
            [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()] if report.exists() else []
        )
        body = tables(facts, outcomes(junit))
    write_between(PAGE, BEGIN, END, body)
    print(f"wrote {PAGE.relative_to(ROOT)} (the suite exited {code})")
    return code


if __name__ == "__main__":
    sys.exit(main())
