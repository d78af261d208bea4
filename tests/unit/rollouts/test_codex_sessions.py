"""``cx.codex_sessions()``: a Codex home's saved sessions as a list, on the real rollouts Codex 0.171.0
wrote (``codex_nb.testing.SAMPLE_CODEX_HOME``), and on every bad input a real home holds: half-written,
newer line kinds, compressed, huge, not rollouts at all, empty. None of them fails the list."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.testing import SAMPLE_CODEX_HOME
from codex_nb.rollouts import sessions as sessions_module


HOME = SAMPLE_CODEX_HOME
DAY = "sessions/2026/12/04"
PARSER = "rollout-2026-12-04T17-12-15-01a2420a-d25f-7bd1-81f9-db2acd04ba04.jsonl"
API = "rollout-2026-12-04T17-12-16-01a2420a-d5c1-7740-b1cd-2785ddfe9c0d.jsonl"


def rollout_bytes(name: str = PARSER) -> bytes:
    return (HOME / DAY / name).read_bytes()


def home_with(tmp_path: Path, files: dict[str, bytes]) -> Path:
    home = tmp_path / "home"
    for name, data in files.items():
        path = home / DAY / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return home


def only(home: Path) -> cx.rollouts.CodexSession:
    listed = cx.codex_sessions(home)
    assert len(listed) == 1, listed
    return listed[0]


def test_the_committed_home_lists_date_cwd_prompt_model_turns_and_plan() -> None:
    listed = cx.codex_sessions(HOME)
    assert listed.home == HOME and "4 saved Codex session(s)" in listed.summary()
    parser = listed.by_id("01a2420a-d25f-7bd1-81f9-db2acd04ba04")
    assert parser.started == "2026-12-04T17:12:15.202Z" and parser.cwd == "/home/ada/work/parser"
    assert parser.first_prompt == "The CSV parser drops the last field. Fix it."
    assert parser.model == "gpt-5.1-codex" and parser.cli_version == "0.171.0"
    assert (parser.turns, parser.turns_exact, parser.plan_progress) == (2, True, "3/3")
    assert parser.last_status == "completed" and parser.problem is None
    assert [s.started for s in listed] == sorted((s.started for s in listed), reverse=True)  # newest first
    whole = parser.read()  # the full parse agrees with the list's head-and-tail reading
    assert len(whole.turns) == parser.turns and len(whole.plans[-1].args.plan) == parser.plan_total
    assert parser.row()["plan"] == "3/3" and parser.row()["prompt"].startswith("The CSV parser")


def test_a_home_with_no_sessions_says_so(tmp_path: Path) -> None:
    listed = cx.codex_sessions(tmp_path / "empty")
    assert list(listed) == []
    assert listed.summary().startswith(f"No saved Codex sessions in {tmp_path / 'empty' / 'sessions'}")


def test_codex_home_defaults_to_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(HOME))
    assert len(cx.codex_sessions()) == 4


def test_a_half_written_rollout_is_listed_with_what_could_be_read(tmp_path: Path) -> None:
    data = rollout_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) - 1) + 40]  # the last line cut 40 bytes in
    session = only(home_with(tmp_path, {PARSER: cut}))
    assert session.first_prompt.startswith("The CSV parser") and session.turns == 2
    assert session.problem == "half written: the last line has no end yet (a session still running?)"
    assert session.last_status == "running"  # the second turn's end was not written yet


def test_a_rollout_cut_inside_its_first_line_is_listed(tmp_path: Path) -> None:
    session = only(home_with(tmp_path, {PARSER: rollout_bytes()[:500]}))
    assert session.problem == "half written: its first line has no end yet (a session starting?)"
    assert session.started == "2026-12-04T17:12:15"  # from the file name


def test_unknown_line_kinds_of_a_newer_codex_are_skipped_and_named(tmp_path: Path) -> None:
    newer = b'{"timestamp":"2026-12-24T00:00:00Z","ordinal":99,"type":"hologram_frame","payload":{}}\n'
    session = only(home_with(tmp_path, {PARSER: rollout_bytes() + newer}))
    assert session.turns == 2 and session.plan_progress == "3/3"
    assert session.problem == "line kinds this codex_nb does not know were skipped (hologram_frame): a newer Codex?"


@pytest.mark.parametrize("suffix", [".zst", ".gz"])
def test_compressed_rollouts_are_listed_like_plain_ones(tmp_path: Path, suffix: str) -> None:
    data = rollout_bytes()
    if suffix == ".gz":
        packed = gzip.compress(data)
    else:
        import zstandard

        packed = zstandard.ZstdCompressor().compress(data)
    session = only(home_with(tmp_path, {PARSER + suffix: packed}))
    assert (session.turns, session.turns_exact, session.plan_progress, session.problem) == (2, True, "3/3", None)
    assert session.first_prompt.startswith("The CSV parser")


def test_a_broken_gzip_says_where_it_broke(tmp_path: Path) -> None:
    packed = gzip.compress(rollout_bytes() * 3)
    session = only(home_with(tmp_path, {PARSER + ".gz": packed[: len(packed) // 2]}))
    assert session.problem and "compressed data broken after" in session.problem
    assert session.session_id == "01a2420a-d25f-7bd1-81f9-db2acd04ba04"  # the head was read


def test_files_that_are_not_rollouts_are_listed_with_a_reason(tmp_path: Path) -> None:
    home = home_with(
        tmp_path,
        {
            "rollout-2026-12-04T01-00-00-a.jsonl": b"\x89PNG\r\n\x1a\n" + os.urandom(300),
            "rollout-2026-12-04T02-00-00-b.jsonl": b'{"type":"event_msg","payload":{}}\n',
            "rollout-2026-12-04T03-00-00-c.jsonl": b"",
            "rollout-2026-12-04T04-00-00-d.jsonl.zst": b"not zstd at all",
        },
    )
    (home / DAY / "rollout-2026-12-04T05-00-00-e.jsonl").mkdir()  # a directory named like one
    os.mkfifo(home / DAY / "rollout-2026-12-04T06-00-00-f.jsonl")  # reading it would never end
    listed = cx.codex_sessions(home)
    reasons = {s.path.name[:30]: s.problem for s in listed}
    assert reasons == {
        "rollout-2026-12-04T06-00-00-f.": reasons["rollout-2026-12-04T06-00-00-f."],
        "rollout-2026-12-04T04-00-00-d.": reasons["rollout-2026-12-04T04-00-00-d."],
        "rollout-2026-12-04T03-00-00-c.": "empty: Codex has not written its first line yet",
        "rollout-2026-12-04T02-00-00-b.": "not a Codex rollout: the first line is 'event_msg', not session_meta",
        "rollout-2026-12-04T01-00-00-a.": "not a Codex rollout: the first line is not a JSON object",
    }
    assert "FIFO" in reasons["rollout-2026-12-04T06-00-00-f."]
    assert "zstd" in reasons["rollout-2026-12-04T04-00-00-d."]
    assert all("\n" not in (s.problem or "") for s in listed)  # one line each


def test_a_200_mib_rollout_is_listed_from_its_head_and_tail(tmp_path: Path) -> None:
    data = rollout_bytes()
    lines = data.split(b"\n")
    head, tail = b"\n".join(lines[:12]) + b"\n", b"\n".join(lines[12:])
    home = home_with(tmp_path, {})
    path = home / DAY / PARSER
    path.parent.mkdir(parents=True)
    with path.open("wb") as f:  # sparse: 200 MiB on paper, a few blocks on disk
        f.write(head)
        filler = b'{"timestamp":"x","type":"event_msg","payload":{"type":"token_count"}}\n'
        f.seek(200 * 1024 * 1024 - len(tail) - len(filler))
        f.write(filler + tail)
    session = only(home)
    assert session.size == 200 * 1024 * 1024
    assert session.first_prompt.startswith("The CSV parser") and session.plan_progress == "3/3"
    assert session.turns_exact is False and session.turns >= 1
    assert session.problem == ("large (200 MiB): turns counted and the plan read in its first and last 64 KiB")


def test_each_file_is_read_only_in_its_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The list reads the head and the tail of a big rollout, never the middle."""
    big = rollout_bytes() + b"".join(rollout_bytes().split(b"\n", 1)[1] for _ in range(20))
    home = home_with(tmp_path, {PARSER: big})
    reads: list[int] = []
    real_read = sessions_module._read

    def counting(fd: int, count: int) -> bytes:
        out = real_read(fd, count)
        reads.append(len(out))
        return out

    monkeypatch.setattr(sessions_module, "_read", counting)
    only(home)
    assert len(big) > 4 * (sessions_module.HEAD_BYTES + sessions_module.TAIL_BYTES)
    assert reads and sum(reads) <= sessions_module.HEAD_BYTES + sessions_module.TAIL_BYTES


def test_a_file_that_grew_after_its_size_was_taken_is_read_to_its_end(tmp_path: Path) -> None:
    path = home_with(tmp_path, {PARSER: rollout_bytes()}) / DAY / PARSER
    win = sessions_module._Window()
    fd = os.open(path, os.O_RDONLY)
    try:
        sessions_module._read_plain(fd, 100, win)  # as if fstat had run when it held 100 bytes
    finally:
        os.close(fd)
    assert win.whole and win.head == rollout_bytes()


def test_a_file_read_in_parts_is_read_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_read = sessions_module._read
    monkeypatch.setattr(sessions_module, "_read", lambda fd, count: real_read(fd, min(count, 1000)))
    session = only(home_with(tmp_path, {PARSER: rollout_bytes()}))
    assert (session.problem, session.turns, session.plan_progress) == (None, 2, "3/3")


def test_a_copied_home_keeps_its_sessions(tmp_path: Path) -> None:
    shutil.copytree(HOME, tmp_path / "copy")
    assert [s.session_id for s in cx.codex_sessions(tmp_path / "copy")] == [
        s.session_id for s in cx.codex_sessions(HOME)
    ]


def test_an_unchanged_file_is_not_read_again_and_a_grown_one_is(tmp_path: Path) -> None:
    data = rollout_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) - 1) + 1]  # the second turn's end not written yet
    home = home_with(tmp_path, {PARSER: cut})
    first = only(home)
    assert first.last_status == "running"
    first.cwd = "changed by the caller"  # a returned row is the caller's: the cache keeps its own
    again = only(home)
    assert again.cwd == "/home/ada/work/parser" and again.last_status == "running"
    (home / DAY / PARSER).write_bytes(data)  # the session went on: the file grew
    assert only(home).last_status == "completed"


def test_session_meta_fields_with_escapes_and_lookalikes_inside_strings(tmp_path: Path) -> None:
    data = rollout_bytes().replace(b'"cwd":"/home/ada/work/parser"', b'"cwd":"/home/ada/w\\u00f6rk/\\"p\\""', 1)
    data = data.replace(b'"payload":{', b'"payload":{"note":"not \\"id\\":\\"this\\" nor \\"cwd\\":\\"/x\\"",', 1)
    session = only(home_with(tmp_path, {PARSER: data}))
    assert session.cwd == '/home/ada/w\u00f6rk/"p"' and session.session_id == "01a2420a-d25f-7bd1-81f9-db2acd04ba04"


@pytest.mark.parametrize(
    "line",
    [
        b'{"a":1}',
        b'{"a":1}  \r\n\t',
        b'{"a":1} x',
        b'{"a":1}{"b":2}',
        b'{"a":1}\x0b',
        b'{"a":"\xff"}',
        b'{"a":"\xc3\xa9\\ud800"}',
        b'{"a":NaN}',
        b' {"a":1}',
        b'{"a":[1,',
        b'{"' + b"[" * 100_000 + b"]" * 100_000,
        b'{"a":1}\x00',
        b"[1]",
        b'"s"',
        b"",
    ],
)
def test_a_line_is_loaded_as_json_loads_loads_it(line: bytes) -> None:
    import json

    try:
        expected = json.loads(line)
    except (ValueError, RecursionError):
        expected = None
    assert sessions_module._load(line) == (expected if isinstance(expected, dict) else None)


def test_the_byte_classes_spelled_as_ranges_are_the_negated_ones() -> None:
    import re

    text = re.compile(sessions_module._TEXT)
    plain = re.compile(sessions_module._PLAIN_FIELDS["id"].pattern[len(b'"id":"(') : -len(b'{0,4096})"')])
    for byte in range(256):
        char = bytes([byte])
        assert bool(text.fullmatch(char)) == (char not in b'"\n')
        assert bool(plain.fullmatch(char)) == (char not in b'"\\\n')


def test_a_thread_rewound_into_new_files_is_one_row_the_newest_and_a_fork_keeps_its_own(tmp_path: Path) -> None:
    import json

    thread = "01a2420a-d25f-7bd1-81f9-db2acd04ba04"
    original = rollout_bytes()
    # what Codex writes on thread/revert: a new file of the same thread, its head only (its history
    # is the old file's up to a point), started later
    meta = json.loads(original.splitlines()[0])
    later = {**meta, "timestamp": "2026-12-04T18:00:00.000Z"}
    later["payload"] = {k: v for k, v in meta["payload"].items() if k not in ("cwd",)} | {
        "timestamp": "2026-12-04T18:00:00.000Z",
        "history_base": {"thread_id": thread, "end_byte_offset": 10},
    }
    rewound = json.dumps(later).encode() + b"\n"
    fork = original.replace(thread.encode(), b"01a2420a-ffff-7bd1-81f9-db2acd04ba04")
    home = home_with(
        tmp_path,
        {
            PARSER: original,
            PARSER.replace(".jsonl", "_01a2420a-eeee-7000-8000-000000000000.jsonl"): rewound,
            PARSER.replace(thread, "01a2420a-ffff-7bd1-81f9-db2acd04ba04"): fork,
        },
    )
    listed = cx.codex_sessions(home)
    assert sorted(s.session_id for s in listed) == sorted([thread, "01a2420a-ffff-7bd1-81f9-db2acd04ba04"])
    row = listed.by_id(thread)
    assert row.started == "2026-12-04T18:00:00.000Z" and "_01a2420a-eeee" in row.path.name  # the newest file
    assert row.earlier == (home / DAY / PARSER,)
    # what the new file lacks, its thread's older file says
    assert row.cwd == "/home/ada/work/parser" and row.first_prompt == "The CSV parser drops the last field. Fix it."
    assert row.row()["rollouts"] == 2 and listed.by_id("01a2420a-ffff-7bd1-81f9-db2acd04ba04").row()["rollouts"] == 1
    again = cx.codex_sessions(home)  # cached rows are copies: merging once changes no later list
    assert again.by_id(thread).earlier == (home / DAY / PARSER,)
