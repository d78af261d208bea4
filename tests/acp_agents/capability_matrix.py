"""Write docs/capability-matrix.md from the tests' results, not by hand.

    .venv/bin/python tests/acp_agents/capability_matrix.py

``MATRIX`` below is the one place that says which tests check which capability for which source:
codex_nb's runtime, the real Codex and each pinned ACP agent. A cell is the pytest node ids that
check it, ``NotOffered`` (the reason read from ``EXPECTED`` in test_agents.py or from the source's
declared ``Capabilities``, never written as a verdict here) or ``NO_TEST`` (a gap, said as one).
The script runs exactly the mapped tests in one pytest run (``--slow``, a fresh HOME, JUnit XML)
and writes the matrix between the page's markers: each cell is passed, failed, skipped, not
offered or no test. tests/project/test_capability_matrix.py checks that every node id exists and
that the committed page has no failed cell.

Everything here reads the sources as text (``ast``), so the project test that checks the mapping
imports neither codex_nb nor the agent suite.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from compatibility_page import junit_cases, write_between

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PAGE = ROOT / "docs" / "capability-matrix.md"
BEGIN, END = "<!-- capability-matrix:begin -->", "<!-- capability-matrix:end -->"
AGENTS_SUITE = "tests/acp_agents/test_agents.py"
ACP_AGENTS = ("codex-acp", "claude-agent-acp", "gemini-cli", "qwen-code")
"""The pinned agents, in ``codex_nb.testing.acp_agents.ACP_AGENTS``'s order (the project test
checks that the two agree)."""
RUNTIME, CODEX = "codex_nb's runtime", "the real Codex"
COLUMNS = (RUNTIME, CODEX, *ACP_AGENTS)
DECLARED = {
    RUNTIME: ("codex_nb/runtime/session.py", "SESSION_CAPABILITIES", "cx.Session().capabilities"),
    CODEX: ("codex_nb/app_server/thread.py", "CODEX_CAPABILITIES", "CodexThread.capabilities"),
}
"""Where each built-in source declares its ``Capabilities`` (read as text, see ``declared``)."""


@dataclass(frozen=True)
class NotOffered:
    """The source does not offer the row: ``field`` of its ``Capabilities`` (runtime, Codex) or of
    ``EXPECTED[agent]`` (an ACP agent) is empty, None or zero."""

    field: str


@dataclass(frozen=True)
class Offered:
    """Offered when ``field`` (as ``NotOffered``) is set; then these tests check it."""

    field: str
    tests: tuple[str, ...]


NO_TEST = "no test"
Cell = tuple[str, ...] | NotOffered | Offered | str
"""Node ids (all must pass), ``NotOffered``, ``Offered`` or ``NO_TEST``."""


def suite(test: str) -> Callable[[str], tuple[str, ...]]:
    """A check of the agent suite, parametrized by agent."""
    return lambda agent: (f"{AGENTS_SUITE}::{test}[{agent}]",)


def acp(
    common: Callable[[str], tuple[str, ...]] | None = None,
    *,
    field: str | None = None,
    extra: dict[str, tuple[str, ...]] | None = None,
) -> dict[str, Cell]:
    """One row's ACP columns: the suite's parametrized check for every agent (``common``), more
    tests for some (``extra``), not offered where ``EXPECTED[agent][field]`` is empty; ``NO_TEST``
    for an agent with no test at all."""
    cells: dict[str, Cell] = {}
    for agent in ACP_AGENTS:
        tests = (common(agent) if common else ()) + (extra or {}).get(agent, ())
        cells[agent] = Offered(field, tests) if field else tests or NO_TEST
    return cells


U, APP, TL, EXT = "tests/unit", "tests/unit/app_server", "tests/unit/timeline", "tests/unit/extension"

MATRIX: dict[str, dict[str, Cell]] = {
    "Plan checklist": {
        RUNTIME: (
            f"{U}/runtime/test_update_plan.py::test_update_plan_tool_emits_plan_update_event",
            f"{TL}/test_plan_timeline.py::test_a_session_records_every_update_plan_call_with_its_call_and_turn",
        ),
        CODEX: (
            f"{APP}/test_app_server.py::test_growing_plan_becomes_events_checklist_and_result",
            f"{TL}/test_plan_timeline.py::test_a_real_codex_thread_is_recorded_with_its_notification",
        ),
        **acp(
            suite("test_a_turn_plan_permission_tool_call_and_message"),
            extra={
                "gemini-cli": (
                    f"{AGENTS_SUITE}::test_gemini_write_todos_reaches_the_checklist_as_far_as_the_agent_sends_it",
                )
            },
        ),
    },
    "Questions": {
        RUNTIME: (f"{U}/tools/test_request_user_input.py::test_widget_answer_flow_and_event_log",),
        CODEX: (
            f"{APP}/test_app_server.py::test_question_in_plan_mode_answered_by_the_headless_policy",
            f"{APP}/test_app_server.py::test_question_answered_through_the_prompts_widget",
        ),
        **acp(
            lambda agent: (
                f"{AGENTS_SUITE}::test_a_question_reaches_the_person_and_their_answer_the_model[{agent}]",
                f"{AGENTS_SUITE}::test_stop_answers_the_agents_pending_question_cancel[{agent}]",
            ),
            field="question",
            extra={
                "codex-acp": (
                    f"{AGENTS_SUITE}::test_codex_acp_brings_an_mcp_servers_form_to_the_person_and_the_answer_to_the_model",
                )
            },
        ),
    },
    "Approvals": {
        RUNTIME: (
            f"{U}/tools/test_request_permissions.py::test_grant_for_turn_event_and_output",
            f"{U}/frontend/test_approvals_and_elicitations.py::test_the_widget_grants_the_ticked_subset_with_its_scope_and_the_record_says_so",
        ),
        CODEX: (
            f"{APP}/test_app_server.py::test_command_approval_is_a_prompt_answered_in_the_widget",
            f"{APP}/test_app_server_approvals.py::test_the_decisions_codex_offers_are_shown_each_with_its_label_and_rule",
        ),
        **acp(
            lambda agent: (
                *suite("test_a_turn_plan_permission_tool_call_and_message")(agent),
                *suite("test_a_write_outside_the_session_folder_is_shown_as_outside_before_the_person_answers")(agent),
            ),
            field="permission_kinds",
        ),
    },
    "Plan mode": {
        RUNTIME: (
            f"{U}/runtime/test_update_plan.py::test_plan_mode_rejects_before_parsing",
            f"{U}/tools/test_request_user_input.py::test_mode_check_precedes_parse",
        ),
        CODEX: (
            f"{APP}/test_app_server_turn_mode.py::test_turn_started_in_the_same_read_as_the_response_has_the_turns_mode",
            f"{APP}/test_app_server.py::test_question_in_plan_mode_answered_by_the_headless_policy",
        ),
        **acp(suite("test_options_are_read_and_plan_mode_set_from_python"), field="plan_option"),
    },
    "Plan review (Approve / Revise / Reject)": {
        RUNTIME: (
            f"{TL}/test_plan_answers.py::test_a_proposed_plan_in_plan_mode_is_approved_the_way_codex_does",
            f"{TL}/test_plan_answers.py::test_revise_plans_again_with_the_note_and_reject_sends_nothing",
        ),
        CODEX: (
            f"{TL}/test_plan_answers_app_server.py::test_a_proposed_plan_approved_starts_the_default_mode_turn_codex_starts",
        ),
        **acp(
            lambda agent: (
                f"{AGENTS_SUITE}::test_a_proposed_plan_approved_in_plan_answers_is_implemented[{agent}]",
                f"{AGENTS_SUITE}::test_a_proposed_plan_revised_then_rejected_keeps_planning[{agent}]",
            ),
            field="plan_review",
        ),
    },
    "Comments and steering": {
        RUNTIME: (
            f"{TL}/test_plan_answers.py::test_a_comment_during_a_turn_reaches_the_next_model_request_with_its_step",
            f"{U}/runtime/test_session_capabilities.py::test_send_during_turn_steers_into_the_next_model_request",
        ),
        CODEX: (
            f"{TL}/test_plan_answers_app_server.py::test_a_comment_is_steered_into_the_running_codex_turn",
            f"{APP}/test_thread_capabilities.py::test_a_codex_thread_says_what_codex_offers_and_steers",
        ),
        **acp(
            extra={
                "codex-acp": (f"{TL}/test_plan_answers_acp.py::test_a_comment_during_an_acp_turn_is_the_next_prompt",)
            }
        ),
    },
    "Attached cells and images": {
        RUNTIME: (f"{EXT}/test_send_cells.py::test_attached_cells_reach_the_next_prompt_as_they_are_then",),
        CODEX: (
            f"{EXT}/test_extension_real_codex.py::test_cells_sent_to_the_agent_reach_a_real_codex_thread_with_their_image",
        ),
        **acp(
            extra={
                agent: (
                    f"{EXT}/test_send_cells_real_acp.py::test_cells_sent_to_the_agent_reach_its_model_with_their_images[{agent}]",
                    f"{EXT}/test_send_cells_real_acp.py::test_codex_cells_with_outputs_reach_the_agents_model[{agent}]",
                )
                for agent in ("codex-acp", "claude-agent-acp")
            }
        ),
    },
    "Options (mode, model, effort)": {
        RUNTIME: NotOffered("options"),
        CODEX: NotOffered("options"),
        **acp(suite("test_options_are_read_and_plan_mode_set_from_python"), field="options"),
    },
    "Sessions (list, load, resume, fork)": {
        RUNTIME: NotOffered("sessions"),
        CODEX: (
            f"{U}/app_server/test_codex_versions.py::test_the_real_binary_reports_version_and_features_and_forks_and_lists",
            f"{APP}/test_app_server.py::test_steer_and_resume_a_saved_thread",
        ),
        **acp(
            suite("test_modes_and_past_sessions_list_fork_resume_load"),
            field="session",
            extra={"codex-acp": (f"{U}/acp/test_acp_session_list.py::test_codex_acp_lists_the_session_it_ran",)},
        ),
    },
    "Stop": {
        RUNTIME: (
            f"{U}/runtime/test_cancellation.py::test_interrupt_aborts_the_running_call_records_marker_and_event",
        ),
        CODEX: (f"{APP}/test_app_server.py::test_interrupt_mid_turn",),
        **acp(suite("test_stop_cancels_the_pending_permission_and_shows_no_late_update")),
    },
    "Usage": {
        RUNTIME: (f"{TL}/test_plan_timeline.py::test_each_turns_usage_is_kept_and_exported",),
        CODEX: (
            f"{APP}/test_app_server_usage.py::test_token_usage_of_the_real_codex_is_token_count_and_the_meter_shows_it",
        ),
        **acp(
            extra={
                "codex-acp": (
                    f"{U}/acp/test_acp_usage.py::test_the_current_codex_acp_reports_context_and_turn_and_the_meter_shows_both",
                )
            }
        ),
    },
    "Notices and compaction": {
        RUNTIME: NO_TEST,
        CODEX: NO_TEST,
        **acp(
            suite("test_compaction_title_and_close_reach_the_transcript_and_the_agent"),
            field="compaction",
        ),
    },
    "Session title and close": {
        RUNTIME: NO_TEST,
        CODEX: NO_TEST,
        **acp(suite("test_compaction_title_and_close_reach_the_transcript_and_the_agent"), field="close"),
    },
    "Subagents": {
        RUNTIME: NO_TEST,
        CODEX: NO_TEST,
        **acp(suite("test_a_subagent_reaches_the_transcript_and_the_timeline"), field="subagent"),
    },
    "Cassette record and replay": {
        RUNTIME: (
            f"{U}/responses/test_responses_cassette.py::test_a_recorded_turn_replays_identically_with_the_server_stopped_and_no_key",
        ),
        CODEX: (f"{APP}/test_app_server_cassette.py::test_a_recorded_session_replays_identically_without_the_binary",),
        **acp(
            suite("test_a_turn_plan_permission_tool_call_and_message"),
            extra={
                "codex-acp": (f"{U}/acp/test_acp_cassette.py::test_codex_acp_recorded_once_replays_without_the_agent",)
            },
        ),
    },
}
"""Row -> column -> cell. The ACP suite's ``test_a_turn_plan_permission_tool_call_and_message``
checks the plan, the permission and the cassette replay of one turn, so it stands behind three rows."""


# --- reading what each source says it offers, as text ---------------------------------------


def _literal(node: ast.expr) -> Any:
    return ast.literal_eval(node)


@cache
def expected() -> dict[str, dict[str, Any]]:
    """``EXPECTED`` of the agent suite, read from its source."""
    tree = ast.parse((ROOT / AGENTS_SUITE).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "EXPECTED":
            assert node.value is not None
            return _literal(node.value)
    raise LookupError(f"{AGENTS_SUITE} has no EXPECTED")


@cache
def declared(column: str) -> dict[str, Any]:
    """The ``Capabilities`` a built-in source declares: the keywords of its ``Capabilities(...)``
    over the dataclass's defaults."""
    fields: dict[str, Any] = {}
    tree = ast.parse((ROOT / "codex_nb/protocol/capabilities.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Capabilities":
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None:
                    fields[item.target.id] = _literal(item.value)
    path, name, _ = DECLARED[column]
    for node in ast.parse((ROOT / path).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            assert isinstance(node.value, ast.Call)
            for keyword in node.value.keywords:
                assert keyword.arg is not None
                try:
                    fields[keyword.arg] = _literal(keyword.value)
                except ValueError:
                    fields[keyword.arg] = ast.unparse(keyword.value)  # a name such as MODES: set
            return fields
    raise LookupError(f"{path} has no {name}")


def offered(column: str, field: str, facts: dict[str, dict[str, Any]]) -> tuple[bool, str]:
    """Whether ``column`` offers ``field`` and where that is said."""
    if column in DECLARED:
        value = declared(column)[field]
        where = f"`{DECLARED[column][2]}.{field}` is `{_show(value)}`"
    else:
        value = facts[column].get(field)
        where = f"`EXPECTED[{column!r}][{field!r}]` is `{_show(value)}`"
    return bool(value), where


def _show(value: Any) -> str:
    """``repr`` with a set sorted, so the page is the same on every run; a long value (a question's
    script) is said only to be set."""
    text = "{" + ", ".join(map(repr, sorted(value))) + "}" if isinstance(value, (set, frozenset)) else repr(value)
    return text if len(text) <= 80 else f"a {type(value).__name__} (set)"


def node_ids() -> list[str]:
    """Every node id the matrix runs, in order, once."""
    facts = expected()
    seen: dict[str, None] = {}
    for row in MATRIX.values():
        for column, cell in row.items():
            for node in _tests(column, cell, facts):
                seen.setdefault(node)
    return list(seen)


def _tests(column: str, cell: Cell, facts: dict[str, dict[str, Any]]) -> tuple[str, ...]:
    if isinstance(cell, Offered):
        return cell.tests if offered(column, cell.field, facts)[0] else ()
    return cell if isinstance(cell, tuple) else ()


# --- running them and writing the page -----------------------------------------------------


def run(nodes: list[str], junit: Path) -> int:
    """One pytest run of exactly ``nodes``, with the slow ones, in a fresh HOME."""
    home = tempfile.mkdtemp(prefix="matrix-home-")
    env = dict(os.environ, HOME=home, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--slow", f"--junitxml={junit}", *nodes]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


def outcomes(junit: Path) -> dict[str, str]:
    """node id -> passed | failed | skipped, from pytest's JUnit XML."""
    out = {}
    for case, state in junit_cases(junit):
        module, name = case.get("classname", ""), case.get("name", "")
        out[f"{module.replace('.', '/')}.py::{name}"] = state
    return out


def verdict(tests: tuple[str, ...], results: dict[str, str]) -> str:
    states = [results.get(node, "not run") for node in tests]
    for state in ("failed", "not run", "skipped"):
        if state in states:
            return state
    return "passed"


def anchor(row: str) -> str:
    """The heading id mkdocs' toc gives ``row``."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", row).strip().lower())


def page(results: dict[str, str]) -> str:
    facts = expected()
    table = ["| | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    details: list[str] = []
    for row, cells in MATRIX.items():
        shown, lines = [], [f"### {row}", "", "| Source | Result | Tests (or why not) |", "|---|---|---|"]
        for column in COLUMNS:
            cell = cells[column]
            field = cell.field if isinstance(cell, (NotOffered, Offered)) else None
            is_offered, where = offered(column, field, facts) if field else (True, "")
            tests = _tests(column, cell, facts)
            if field and not is_offered:
                state, why = "not offered", where
            elif cell == NO_TEST or not tests:
                state, why = NO_TEST, "no test checks it for this source yet"
            else:
                state = verdict(tests, results)
                why = "<br>".join(
                    f"`{node}`" + ("" if results.get(node) == "passed" else f" ({results.get(node, 'not run')})")
                    for node in tests
                )
                if field:
                    why = f"{why}<br>(offered: {where})"
            shown.append(f"[{state}](#{anchor(row)})")
            lines.append(f"| {column} | {state} | {why.replace('|', '&#124;')} |")
        table.append(f"| {row} | " + " | ".join(shown) + " |")
        details.append("\n".join(lines))
    return "\n".join(table) + "\n\n## The tests behind each cell\n\n" + "\n\n".join(details)


def main() -> int:
    if BEGIN not in PAGE.read_text(encoding="utf-8"):
        print(f"{PAGE.relative_to(ROOT)} has no {BEGIN} marker: put it and {END} where the matrix goes")
        return 2
    nodes = node_ids()
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        code = run(nodes, junit)
        results = outcomes(junit) if junit.exists() else {}
    write_between(PAGE, BEGIN, END, page(results))
    print(f"wrote {PAGE.relative_to(ROOT)} from {len(nodes)} tests (pytest exited {code})")
    return code


if __name__ == "__main__":
    sys.exit(main())
