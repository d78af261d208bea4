"""A real cassette cut in the middle of a line (a disk filled, a copy stopped) is named as cut,
with its file and line, wherever the cut falls and whatever came after it: the file ending there,
a newline a copying tool added, or more lines written after the cut. Never a silent drop of the
torn record, never "hand-edited"."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_nb.cassettes.conversation import open_conversation
from codex_nb.cassettes.responses_cassette import open_cassette
from codex_nb.errors import CassetteError

from helpers.paths import ROOT

CASSETTES = ROOT / "notebooks" / "cassettes"
REAL = {
    "responses": (CASSETTES / "08_your_model.cassette.jsonl", lambda p: open_cassette(p, "none")),
    "jsonrpc": (CASSETTES / "10_any_agent.cassette.jsonl", lambda p: open_conversation(p, "none", who="ACP agent")),
}


def cuts(line: bytes) -> list[int]:
    """Offsets across the line: near its start, inside a string, inside a multi-byte character
    (where the line has one), and one byte before its end."""
    offsets = {1, 2, len(line) // 3, len(line) // 2, len(line) - 2, len(line) - 1}
    wide = next((i for i, b in enumerate(line) if b >= 0xC0), None)
    if wide is not None:
        offsets.add(wide + 1)
    return sorted(offsets)


@pytest.mark.parametrize("kind", sorted(REAL))
@pytest.mark.parametrize("after", ["nothing", "a newline", "more lines"])
def test_a_real_cassette_cut_mid_line_names_file_line_and_the_cut(tmp_path: Path, kind: str, after: str) -> None:
    source, load = REAL[kind]
    lines = source.read_bytes().split(b"\n")[:-1]
    number = len(lines)  # the last line (1-based)
    load(source)  # whole, it loads
    for at in cuts(lines[-1]):
        torn = b"\n".join([*lines[:-1], lines[-1][:at]])
        torn += {"nothing": b"", "a newline": b"\n", "more lines": b"\n" + lines[-2] + b"\n"}[after]
        path = tmp_path / f"cut-{at}.cassette.jsonl"
        path.write_bytes(torn)
        with pytest.raises(CassetteError) as caught:
            load(path)
        message = str(caught.value)
        assert f"cassette {path} is truncated at line {number} (" in message, (at, message)
        assert "was cut off" in message and "hand-edited" not in message
        assert (caught.value.path, caught.value.line) == (path, number)


def test_a_line_that_is_not_json_is_still_called_hand_edited(tmp_path: Path) -> None:
    source, load = REAL["responses"]
    lines = source.read_bytes().split(b"\n")[:-1]
    for bad in (b'{"request": {},, }', b'{"request": {}} trailing', b"not json"):
        path = tmp_path / "edited.cassette.jsonl"
        path.write_bytes(b"\n".join([*lines, bad]) + b"\n")
        with pytest.raises(CassetteError, match=rf"line {len(lines) + 1} is not JSON \(hand-edited\?\)"):
            load(path)
