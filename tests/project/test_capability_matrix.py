"""The capability matrix (docs/capability-matrix.md) cannot rot: every test its mapping names
exists (read from the test files' source, so this stays fast), every row has a cell for every
source, the committed page was written from the current mapping, and it has no failed cell."""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path

import pytest
from helpers.paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "acp_agents"))
import capability_matrix as matrix  # noqa: E402  (a script beside the agent suite, not a package)


@cache
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _test(path: Path, name: str) -> tuple[bool, str | None]:
    """Whether ``path`` defines the test ``name`` at the top level, and the list it is parametrized
    with (``AGENTS``; None when it is not). Read with a pattern, not parsed: parsing every file the
    matrix names takes longer than a fast test may."""
    text = _source(path)
    found = re.search(rf"^(?:async )?def {re.escape(name)}\(", text, flags=re.M)
    if found is None:
        return False, None
    above = text[: found.start()].splitlines()
    decorators = []
    while above and above[-1].startswith(("@", " ", ")")):  # decorators sit right above their def
        decorators.append(above.pop())
    over = re.search(r"mark\.parametrize\(\s*\"[\w, ]+\",\s*(\w+)", "\n".join(reversed(decorators)))
    parametrized = over.group(1) if over else ("?" if any("parametrize" in d for d in decorators) else None)
    return True, parametrized


def missing(node: str) -> str | None:
    """Why ``node`` names no test (None when it does)."""
    path, _, name = node.partition("::")
    name, _, param = name.partition("[")
    param = param.rstrip("]")
    if not (ROOT / path).is_file():
        return f"{path} does not exist"
    exists, over = _test(ROOT / path, name)
    if not exists:
        return f"{path} has no test {name}"
    if not param:
        return f"{name} is parametrized: name the case ({name}[...])" if over else None
    if over not in {"AGENTS", "QUESTION_AGENTS", "REVIEW_AGENTS"}:
        return f"{name} is not parametrized by agent, so {name}[{param}] is no test"
    if param not in matrix.ACP_AGENTS:
        return f"{param!r} is none of the pinned agents {matrix.ACP_AGENTS}"
    if over == "QUESTION_AGENTS" and matrix.expected()[param]["question"] is None:
        return f"{name} runs only on the agents whose EXPECTED question is set, not {param}"
    if over == "REVIEW_AGENTS" and matrix.expected()[param]["plan_review"] is None:
        return f"{name} runs only on the agents whose EXPECTED plan_review is set, not {param}"
    return None


def test_every_test_the_matrix_names_exists() -> None:
    nodes = matrix.node_ids()
    assert len(nodes) >= 40
    problems = [f"{node}: {why}" for node in nodes if (why := missing(node))]
    assert not problems, "fix the mapping in tests/acp_agents/capability_matrix.py:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "node, words",
    [
        ("tests/unit/nowhere.py::test_x", "does not exist"),
        ("tests/acp_agents/test_agents.py::test_no_such_check", "has no test"),
        (
            "tests/acp_agents/test_agents.py::test_stop_cancels_the_pending_permission_and_shows_no_late_update",
            "name the case",
        ),
        (
            "tests/acp_agents/test_agents.py::test_stop_cancels_the_pending_permission_and_shows_no_late_update[nobody]",
            "none of the pinned",
        ),
        (
            "tests/acp_agents/test_agents.py::test_a_question_reaches_the_person_and_their_answer_the_model[gemini-cli]",
            "runs only",
        ),
        ("tests/unit/app_server/test_app_server.py::test_interrupt_mid_turn[codex-acp]", "not parametrized"),
    ],
)
def test_the_check_finds_a_test_that_is_not_there(node: str, words: str) -> None:
    assert words in (missing(node) or "")


def test_every_row_has_a_cell_for_every_source_and_each_reason_exists() -> None:
    facts = matrix.expected()
    assert list(facts) == list(matrix.ACP_AGENTS)
    source = (ROOT / "codex_nb/testing/acp_agents.py").read_text(encoding="utf-8")
    pinned = next(
        n.value
        for n in ast.parse(source).body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == "ACP_AGENTS"
    )
    names = [
        ast.literal_eval(k.value)
        for call in ast.walk(pinned)
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "AcpAgentSpec"
        for k in call.keywords
        if k.arg == "name"
    ]
    assert names == list(matrix.ACP_AGENTS), "the matrix's agents are not codex_nb.testing.acp_agents.ACP_AGENTS"
    for row, cells in matrix.MATRIX.items():
        assert list(cells) == list(matrix.COLUMNS), row
        for column, cell in cells.items():
            if isinstance(cell, (matrix.NotOffered, matrix.Offered)):
                fields = matrix.declared(column) if column in matrix.DECLARED else facts[column]
                assert cell.field in fields, f"{row} / {column}: no field {cell.field!r} says whether it is offered"
            else:
                assert cell == matrix.NO_TEST or (isinstance(cell, tuple) and cell), f"{row} / {column}: {cell!r}"


def _published() -> str:
    text = matrix.PAGE.read_text(encoding="utf-8")
    assert matrix.BEGIN in text and matrix.END in text, f"{matrix.PAGE.name} lost its markers"
    return text.split(matrix.BEGIN, 1)[1].split(matrix.END, 1)[0]


def test_the_published_matrix_has_no_failed_cell_and_is_the_current_mappings() -> None:
    body = _published()
    table = [line for line in body.split("\n## ", 1)[0].splitlines() if line.startswith("| ")]
    rows = {line.split(" | ")[0].removeprefix("| ") for line in table[1:]}
    assert rows == set(matrix.MATRIX), "the page is not the mapping's: run tests/acp_agents/capability_matrix.py"
    states = re.findall(r"\[([a-z ]+)\]\(#", "\n".join(table))
    assert len(states) == len(matrix.MATRIX) * len(matrix.COLUMNS)
    assert "failed" not in states, "the matrix has a failed cell: fix it, then run the generator again"
    assert "not run" not in states, "a test of the matrix did not run: run tests/acp_agents/capability_matrix.py"
    named = set(re.findall(r"`(tests/[^`]+::[^`]+)`", body))
    assert named == set(matrix.node_ids()), "the page names other tests than the mapping: run the generator again"
