"""serde_json's error texts have one producer: ``codex_nb/protocol/serde_json.py``.

Codex shows the model serde_json's own messages (``invalid type: ..., expected ... at line L
column C``). Two writers of those texts drift apart (one said ``expected value`` where serde says
``expected `:```, one counted the recursion limit one level late), so every other module asks
serde_json.py for a text instead of spelling one. This test reads every string literal and
f-string in codex_nb/ (docstrings aside) and fails on a serde message template outside it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import codex_nb

PACKAGE = Path(codex_nb.__file__).parent
PRODUCER = PACKAGE / "protocol" / "serde_json.py"

# serde / serde_json message templates (serde::de::Error, serde_json::error::ErrorCode).
TEMPLATES = re.compile(
    "|".join(
        [
            r"at line \S+ column",
            r"invalid (type|value|length): ",
            r"\b(missing|unknown|duplicate) field `",
            r"unknown variant `",
            r"recursion limit exceeded",
            r"EOF while parsing",
            r"lone leading surrogate",
            r"unexpected end of hex escape",
            r"number out of range",
            r"^key must be a string",
            r"trailing (characters|comma)",
            r"^expected value$",
            r"^(floating point|integer|boolean|string) `?$",
        ]
    )
)


# codex_nb's own summaries in serde's words, not one serde message (no position, two fields at
# once): left as they are, each with the reason; a new entry needs one too.
ALLOWED = {
    ("codex_nb/tools/arguments.py", "{}: invalid type: expected struct {}"),  # the type is not named
    ("codex_nb/mcp/resources.py", "failed to parse function arguments: missing field `server` or `uri`"),
    # reads tomllib's "(at line L, column C)" (a TOML parse error's place), writes no serde text
    ("codex_nb/config/layers.py", r"\(at line (\d+), column (\d+)\)$"),
}


def _literal_texts(tree: ast.Module) -> list[tuple[int, str]]:
    """Every string constant and f-string (placeholders as ``{}``), docstrings left out."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            docstrings.add(id(node.value))  # an attribute docstring
    out: list[tuple[int, str]] = []
    inside_fstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inside_fstrings.add(id(value))
                parts.append(value.value if isinstance(value, ast.Constant) else "{}")
            out.append((node.lineno, "".join(str(p) for p in parts)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and id(node) not in inside_fstrings:
                out.append((node.lineno, node.value))
    return out


def serde_texts_outside_the_producer(root: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == PRODUCER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _literal_texts(tree):
            where = str(path.relative_to(root.parent))
            if TEMPLATES.search(text) and (where, text) not in ALLOWED:
                found.append(f"{path.relative_to(root.parent)}:{line}: {text!r}")
    return found


def test_serde_error_texts_are_written_only_by_serde_json_py() -> None:
    found = serde_texts_outside_the_producer()
    assert found == [], "serde error texts written outside protocol/serde_json.py:\n" + "\n".join(found)


def test_the_scan_sees_the_templates_it_looks_for(tmp_path: Path) -> None:
    """The scan is not vacuous: a module spelling serde's texts is caught, f-strings too."""
    (tmp_path / "copy.py").write_text(
        '"""A docstring may say invalid type: map, expected struct X."""\n'
        "def f(v, line, col):\n"
        '    a = f"invalid type: {v}, expected u64"\n'
        '    b = f" at line {line} column {col}"\n'
        '    c = "recursion limit exceeded"\n'
        "    return a, b, c\n",
        encoding="utf-8",
    )
    found = serde_texts_outside_the_producer(tmp_path)
    assert len(found) == 3, found
