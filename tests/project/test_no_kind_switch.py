"""No behaviour of codex_nb switches on what kind of source it holds.

Every source says what it offers in ``capabilities`` (``cx.Capabilities``) and takes the person's
verbs as ``cx.AgentSource``; ``SourceKind`` stays a label the timeline's records keep (saved data).
So, across every module of ``codex_nb`` (read with ``ast``):

* nothing compares a ``SourceKind`` member, or a source's kind, with anything (``is``, ``==``,
  ``in``...), and no ``match`` has a case on one;
* no dict is keyed by ``SourceKind`` members (a table looked up by kind is a switch too);
* the label is made in one place, ``timeline/recorder.py`` (``source_kind(source)``), and read
  nowhere else for a decision: no other module calls ``source_kind``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.paths import PACKAGE

LABEL_MAKER = "timeline/recorder.py"


def _is_kind(node: ast.AST) -> bool:
    """``SourceKind.X``, ``source_kind(...)``, or a name or attribute called ``source_kind``
    (``timeline.source_kind``)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "SourceKind":
        return True
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "source_kind") or (
            isinstance(func, ast.Attribute) and func.attr == "source_kind"
        )
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name == "source_kind"


def _mentions_kind(node: ast.AST) -> bool:
    return any(_is_kind(n) for n in ast.walk(node))


def kind_switches(source: str, path: str) -> list[str]:
    """Where ``source`` (the text of ``path``) decides by a source's kind, as ``path:line what``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Compare) and any(_mentions_kind(n) for n in [node.left, *node.comparators]):
            found.append(f"{path}:{node.lineno} compares a source kind")
        elif isinstance(node, ast.Dict) and any(k is not None and _mentions_kind(k) for k in node.keys):
            found.append(f"{path}:{node.lineno} a table keyed by source kind")
        elif isinstance(node, ast.match_case) and _mentions_kind(node.pattern):
            found.append(f"{path}:{node.pattern.lineno} a match case on a source kind")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "source_kind"
            and not path.endswith(LABEL_MAKER)
        ):
            found.append(f"{path}:{node.lineno} reads the source kind (the recorder keeps it as a label)")
    return found


def test_no_module_switches_on_the_source_kind() -> None:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        found += kind_switches(path.read_text(encoding="utf-8"), rel)
    assert not found, "decide from source.capabilities, not the kind:\n" + "\n".join(found)


def test_the_check_catches_each_way_of_switching() -> None:
    samples = {
        "if self.kind is SourceKind.SESSION:\n    pass\n": "compares",
        "ok = source_kind(s) == SourceKind.ACP\n": "compares",
        "ok = timeline.source_kind in (SourceKind.ACP, SourceKind.APP_SERVER)\n": "compares",
        'PEER = {SourceKind.ACP: "the ACP agent"}\n': "keyed by",
        "match kind:\n    case SourceKind.ACP:\n        pass\n": "match case",
        "prompt = turn_input(source, str(source_kind(source)), text)\n": "reads the source kind",
    }
    for text, what in samples.items():
        found = kind_switches(text, "extension/state.py")
        assert found and what in found[0], (text, found)
    # the label itself, made once and stored: not a decision
    label = "kind = source_kind(source)\nrecord = Revision(source_kind=kind)\n"
    assert kind_switches(label, LABEL_MAKER) == []
    assert Path(PACKAGE / LABEL_MAKER).is_file()
