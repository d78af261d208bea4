"""Rollout files a hostile or damaged source could hand over: every line is read or reported
(never an exception for one bad line), sizes are capped, and non-regular files are refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.rollouts.rollout import MAX_LISTED
from codex_nb.rollouts.rollout_lines import MAX_BYTES, MAX_LINE_BYTES

SESSION = "0199a213-81c0-7800-8aa1-bbab2a035a53"
PLAN = {"plan": [{"step": "read", "status": "in_progress"}]}


def _line(kind: str, payload: Any, **extra: Any) -> str:
    return json.dumps({"timestamp": "2026-12-01T10:00:00.000Z", "type": kind, "payload": payload, **extra})


def _session(*, plan_call: str = "p1", arguments: str | None = None) -> list[str]:
    """A small rollout as Codex writes it: meta, one turn with one accepted update_plan call."""
    return [
        _line("session_meta", {"id": SESSION, "cwd": "/tmp"}),
        _line("event_msg", {"type": "task_started", "turn_id": "t1"}),
        _line(
            "response_item",
            {
                "type": "function_call",
                "name": "update_plan",
                "call_id": plan_call,
                "arguments": arguments if arguments is not None else json.dumps(PLAN),
            },
        ),
        _line("response_item", {"type": "function_call_output", "call_id": plan_call, "output": "Plan updated"}),
        _line("event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": "done"}),
    ]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_wrong_typed_field_is_a_reported_line_not_an_exception(tmp_path: Path) -> None:
    lines = _session()
    bad = [
        _line("response_item", {"type": "message", "internal_chat_message_metadata_passthrough": "x"}),
        _line("response_item", {"type": "message", "internal_chat_message_metadata_passthrough": {"turn_id": [1]}}),
        _line("event_msg", {"type": "task_started", "turn_id": ["t2"]}),
        _line("event_msg", {"type": "task_complete", "turn_id": {"id": "t1"}}),
        _line("event_msg", {"type": ["task_started"], "turn_id": "t3"}),
        _line("response_item", {"type": ["function_call"], "name": "update_plan"}),
        _line("response_item", {"type": "function_call_output", "call_id": ["p1"], "output": "Plan updated"}),
        _line("event_msg", {"type": "task_complete", "turn_id": "t1", "last_agent_message": 7}),
        _line("response_item", "a string"),
        json.dumps({"type": "event_msg"}),
        _line("turn_context", [1]),  # a payload this reader does not read: counted only
    ]
    rollout = cx.read_rollout(_write(tmp_path / "rollout-typed.jsonl", lines[:4] + bad + lines[4:]))
    assert rollout.malformed == [
        (5, "payload.internal_chat_message_metadata_passthrough is a string, expected an object"),
        (6, "payload.internal_chat_message_metadata_passthrough.turn_id is a list, expected a string"),
        (7, "payload.turn_id is a list, expected a string"),
        (8, "payload.turn_id is an object, expected a string"),
        (9, "payload.type is a list, expected a string"),
        (10, "payload.type is a list, expected a string"),
        (11, "payload.call_id is a list, expected a string"),
        (12, "payload.last_agent_message is a number, expected a string"),
        (13, "response_item line's payload is a string, expected an object"),
        (14, "event_msg line's payload is null, expected an object"),
    ]
    assert rollout.malformed_count == 10 and rollout.skipped == 10 and rollout.lines == 16
    assert [p.call_id for p in rollout.plans] == ["p1"] and rollout.session_id == SESSION
    assert [(t.turn_id, t.status, t.last_agent_message) for t in rollout.turns] == [("t1", "completed", "done")]
    assert len(rollout.items) == 2  # the skipped response items are not kept
    assert "10 malformed line(s) skipped; first at line 5: payload.internal_chat" in rollout.summary()


def test_an_object_session_id_is_reported_and_replay_names_the_thread_by_file(tmp_path: Path) -> None:
    lines = _session()
    lines[0] = _line("session_meta", {"id": {"uuid": SESSION}})
    path = _write(tmp_path / "rollout-odd-id.jsonl", lines)
    rollout = cx.read_rollout(path)
    assert rollout.malformed == [(1, "payload.id is an object, expected a string")] and rollout.session_id is None
    replay = cx.RolloutReplay(path)
    assert replay.thread_id == "rollout-odd-id" and len(replay) == 1
    assert replay.seek(0).thread_id == "rollout-odd-id"


def test_deep_nesting_is_reported_by_line(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    lines = _session(arguments='{"plan": ' + deep + "}")  # "accepted" by a forged output, yet unreadable
    lines.insert(1, '{"type": "response_item", "payload": {"x": ' + deep + "}}")
    # serde_json's limit counts every level: the line's object and its payload are two of the 128
    lines.insert(2, _line("response_item", {"type": "message", "x": json.loads("[" * 127 + "]" * 127)}))
    lines.insert(3, _line("response_item", {"type": "message", "x": json.loads("[" * 126 + "]" * 126)}))
    rollout = cx.read_rollout(_write(tmp_path / "rollout-deep.jsonl", lines))
    assert [(n, r.split(":")[0]) for n, r in rollout.malformed] == [
        (2, "nested deeper than 128 levels"),
        (3, "nested deeper than 128 levels"),
    ]
    # serde_json refuses the 128th level (its remaining_depth of 128 reaches 0 there): the 126th "["
    assert rollout.malformed[0][1] == ("nested deeper than 128 levels: recursion limit exceeded at line 1 column 169")
    assert rollout.plans == [] and rollout.rejected_plan_calls == ["p1"]  # as the live tool parses them
    assert len(rollout.items) == 3
    # On a long line serde's position is not looked for (a scan in Python would take seconds)
    long_line = '{"type": "response_item", "payload": {"pad": "' + "p" * (2 << 20) + '", "x": ' + deep + "}}"
    rollout = cx.read_rollout(_write(tmp_path / "rollout-deep-long.jsonl", [long_line]))
    assert rollout.malformed == [(1, "nested deeper than 128 levels")]


def test_bytes_that_are_not_utf8_json_are_reported(tmp_path: Path) -> None:
    lines = [line.encode() for line in _session()]
    lines[1:1] = [
        b'{"type": "event_msg", "payload": {"type": "x\xff"}}',
        b"\x00",
        b"\x00" * 40,
        b'{"type": "event_msg",\x00 "payload": {}}',
        b"\xef\xbb\xbf{}",
    ]
    path = tmp_path / "rollout-bytes.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n\xc3")  # and a last line cut inside a character
    rollout = cx.read_rollout(path)
    assert rollout.malformed == [
        (2, "not UTF-8: byte 0xff at column 45"),
        (3, "not JSON: Expecting value at column 1"),
        (4, "not JSON: Expecting value at column 1"),
        (5, "not JSON: Expecting property name enclosed in double quotes at column 22"),
        (6, "not JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at column 1"),
    ]
    assert rollout.truncated == "line 11: 1 bytes without an end (not UTF-8: byte 0xc3 at column 1)"
    assert [p.call_id for p in rollout.plans] == ["p1"]


def test_an_over_long_line_is_skipped_and_reported_with_its_cap(tmp_path: Path) -> None:
    lines = _session()
    huge = '{"type": "response_item", "payload": {"type": "message", "x": "' + "a" * MAX_LINE_BYTES + '"}}'
    path = _write(tmp_path / "rollout-long.jsonl", lines[:2] + [huge] + lines[2:])
    with path.open("a") as f:
        f.write("b" * 5000)  # and a last line with no newline, over a lower cap
    rollout = cx.read_rollout(path)
    assert rollout.malformed == [
        (
            3,
            (
                f"32.0 MiB long, over the 32 MiB line cap (max_line_bytes={MAX_LINE_BYTES}); "
                f"cx.read_rollout(path, max_line_bytes=...) reads it"
            ),
        )
    ]
    assert [p.call_id for p in rollout.plans] == ["p1"] and rollout.truncated is not None
    assert len(cx.read_rollout(path, max_line_bytes=MAX_LINE_BYTES + 100).items) == 3
    small = cx.read_rollout(path, max_line_bytes=4096)
    assert [(n, r.split(",")[0]) for n, r in small.malformed] == [(3, "32.0 MiB long"), (7, "4.9 KiB long")]
    assert small.truncated is None


def test_a_file_over_the_size_cap_is_refused_with_the_parameter(tmp_path: Path) -> None:
    path = _write(tmp_path / "rollout-big.jsonl", _session())
    with pytest.raises(
        cx.rollouts.RolloutError,
        match=r"rollout-big.jsonl is larger than 100 bytes \(max_bytes=100\).*"
        r"cx.read_rollout\(path, max_bytes=\.\.\.\)",
    ):
        cx.read_rollout(path, max_bytes=100)
    assert len(cx.read_rollout(path).plans) == 1


def test_a_zstd_file_of_several_frames_is_read_to_the_end(tmp_path: Path) -> None:
    import zstandard

    lines = _session()
    compressor = zstandard.ZstdCompressor()
    head, rest = "".join(f"{x}\n" for x in lines[:3]), "".join(f"{x}\n" for x in lines[3:])
    path = tmp_path / "rollout-frames.jsonl.zst"
    path.write_bytes(compressor.compress(head.encode()) + compressor.compress(rest.encode()))
    rollout = cx.read_rollout(path)
    assert (
        [p.call_id for p in rollout.plans] == ["p1"] and rollout.lines == 5 and rollout.turns[0].status == "completed"
    )


_BOMB_READER = textwrap.dedent("""
    import resource, sys
    limit = 2 << 30  # address space: without a bound the read would take the machine's memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import codex_nb as cx
    try:
        cx.read_rollout(sys.argv[1])
    except cx.rollouts.RolloutError as err:
        print("RolloutError:", err)
    try:  # this process's own peak: getrusage's ru_maxrss survives execve, so it would report
        # the parent's size (pytest's, hundreds of MiB in a full run) whenever that is larger
        with open("/proc/self/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) << 10
    except OSError:  # no /proc (macOS): ru_maxrss is in bytes there
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("peak MiB", peak >> 20)
""")


@pytest.mark.parametrize("line", [b"", b'{"type": "x"}\n' + b" " * 100])
def test_a_zstd_bomb_stops_at_the_cap_in_bounded_memory(tmp_path: Path, line: bytes) -> None:
    import zstandard

    inflated = 3 << 30
    compress = zstandard.ZstdCompressor(level=1).compressobj(size=len(line) + inflated)
    block = bytes(16 << 20)
    parts = [compress.compress(line)] + [compress.compress(block) for _ in range(inflated // len(block))]
    bomb = tmp_path / "rollout-bomb.jsonl.zst"
    bomb.write_bytes(b"".join(parts) + compress.flush())
    assert bomb.stat().st_size < 200 << 10  # 3 GiB of zeros (one line) in under 200 KiB
    done = subprocess.run(
        [sys.executable, "-c", _BOMB_READER, str(bomb)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    assert (
        f"RolloutError: rollout-bomb.jsonl.zst inflates to more than 1 GiB (max_bytes={MAX_BYTES}), so it was "
        f"not read; if it is a real session that large, read it with cx.read_rollout(path, max_bytes=...)"
        in done.stdout
    )
    peak_mib = int(done.stdout.rsplit("peak MiB", 1)[1])
    assert peak_mib < 400, done.stdout  # the interpreter and codex_nb, one block and one capped line


def test_non_regular_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "rollout-fifo.jsonl"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    loop = tmp_path / "rollout-loop.jsonl"
    loop.symlink_to(tmp_path / "rollout-loop2.jsonl")
    (tmp_path / "rollout-loop2.jsonl").symlink_to(loop)
    cases = {
        fifo: "it is a FIFO",
        Path("/dev/zero"): "it is a character device",
        tmp_path: "it is a directory",
        loop: "a symbolic link loop",
        tmp_path / "missing.jsonl": "it does not exist",
    }
    for path, why in cases.items():
        with pytest.raises(cx.rollouts.RolloutError) as caught:
            cx.read_rollout(path)
        assert str(caught.value).startswith(f"{path} is not a rollout file ({why}")
        assert str(caught.value).endswith("find saved sessions with cx.list_rollouts()")
    via_link = tmp_path / "rollout-link.jsonl"
    via_link.symlink_to(_write(tmp_path / "real.jsonl", _session()))
    assert len(cx.read_rollout(via_link).plans) == 1


def test_line_numbers_count_empty_lines_and_lines_across_blocks(tmp_path: Path) -> None:
    lines = _session()
    wide = _line("response_item", {"type": "message", "x": "w" * (3 << 20)})  # spans the 1 MiB read blocks
    path = tmp_path / "rollout-gaps.jsonl"
    path.write_text(lines[0] + "\n" * (3 << 20) + "[1]\n" + wide + "\n\n" + "[2]\n" + "\n".join(lines[1:]) + "\n")
    rollout = cx.read_rollout(path)
    first = 1 + (3 << 20)
    assert rollout.malformed == [
        (first, "not an object with a string 'type'"),
        (first + 3, "not an object with a string 'type'"),
    ]
    assert rollout.lines == 8 and len(rollout.items) == 3
    assert [p.line for p in rollout.plans] == [first + 6]


def test_a_file_of_too_many_lines_is_refused_with_the_parameter(tmp_path: Path) -> None:
    path = _write(tmp_path / "rollout-lines.jsonl", _session() + ["\n".join(["{}"] * 10)])
    with pytest.raises(
        cx.rollouts.RolloutError,
        match=r"rollout-lines.jsonl has more than 12 lines \(max_lines=12\).*"
        r"cx.read_rollout\(path, max_lines=\.\.\.\)",
    ):
        cx.read_rollout(path, max_lines=12)
    assert cx.read_rollout(path, max_lines=15).malformed_count == 10
    with pytest.raises(ValueError, match="max_line_bytes must be a positive integer, got 0"):
        cx.read_rollout(path, max_line_bytes=0)


def test_many_bad_lines_are_all_counted_and_the_first_are_listed(tmp_path: Path) -> None:
    lines = _session() + ["[1]"] * 1500 + [_line(f"kind-{i}" + "k" * 200, {}) for i in range(150)]
    rollout = cx.read_rollout(_write(tmp_path / "rollout-many.jsonl", lines))
    assert rollout.malformed_count == 1500 and len(rollout.malformed) == MAX_LISTED
    assert rollout.malformed[-1] == (1005, "not an object with a string 'type'")
    assert sum(rollout.unknown_types.values()) == 150 and len(rollout.unknown_types) == 100
    assert rollout.unknown_types["(other types)"] == 51  # the 100th distinct name onwards
    assert max(len(name) for name in rollout.unknown_types) == 81
    assert rollout.skipped == 1650 and "1500 malformed line(s) skipped" in rollout.summary()
    assert "k\u2026, and 90 more)" in rollout.summary()


def test_a_forked_rollout_is_named_by_its_first_session_meta(tmp_path: Path) -> None:
    """A forked or resumed rollout repeats its parent's ``session_meta`` after its own; Codex's
    ``read_session_meta_line`` takes the first readable one, and so does ``read_rollout``."""
    parent = "0199a213-0000-7000-8000-000000000001"
    file = tmp_path / "rollout.jsonl"
    lines = [
        _line("session_meta", {"id": {"not": "a string"}}),  # unreadable: skipped, as Codex's serde skips it
        _line("session_meta", {"id": SESSION, "forked_from_id": parent, "cwd": "/child"}),
        _line("session_meta", {"id": parent, "cwd": "/parent"}),
        *_session()[1:],
    ]
    file.write_text("\n".join(lines) + "\n")
    rollout = cx.read_rollout(file)
    assert (rollout.session_id, rollout.meta["cwd"], rollout.meta["forked_from_id"]) == (SESSION, "/child", parent)
    assert rollout.line_types["session_meta"] == 3
