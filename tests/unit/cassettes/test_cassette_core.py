"""The cassette core: file format, bad files, record modes, atomic and lock-serialised writes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from codex_nb.errors import CassetteError, CodexNbError, ConfigError
from codex_nb.cassettes import format as fmt
from codex_nb.cassettes.normalise import normaliser
from codex_nb.cassettes.scrub import Scrubber, check_filters
from codex_nb.cassettes.store import Cassette


def recorded(path: Path, *interactions: dict, kind: str = "test") -> Path:
    path.write_bytes(fmt.dump(fmt.Header(kind=kind), list(interactions)))
    return path


def test_the_file_is_a_header_then_one_interaction_per_line(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    cassette = Cassette(path, kind="test", record_mode="once")
    assert cassette.recording and not cassette.recorded
    cassette.record({"request": {"n": 1}})
    cassette.record({"request": {"n": 2}})
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["codex_nb_cassette"] == fmt.FORMAT and header["kind"] == "test" and header["codex_nb_version"]
    assert [json.loads(line) for line in lines[1:]] == [{"request": {"n": 1}}, {"request": {"n": 2}}]
    assert path.stat().st_mode & 0o777 == 0o644
    assert not list(tmp_path.glob(".*tmp"))


def test_once_replays_an_existing_file_and_each_interaction_plays_once(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", {"request": 1}, {"request": 2}, {"request": 1})
    cassette = Cassette(path, kind="test", record_mode="once")
    assert not cassette.recording
    first = cassette.play(lambda i: i["request"] == 1)
    second = cassette.play(lambda i: i["request"] == 1)
    assert first is not None and second is not None and (first.line, second.line) == (2, 4)
    assert cassette.play(lambda i: i["request"] == 1) is None
    assert cassette.unplayed == 1
    with pytest.raises(CassetteError, match="does not record"):
        cassette.record({"request": 3})


def test_the_record_modes(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", {"request": 1})
    with pytest.raises(CassetteError, match="does not exist and record_mode='none'"):
        Cassette(tmp_path / "missing.jsonl", kind="test", record_mode="none")
    assert not Cassette(path, kind="test", record_mode="none").recording
    episodes = Cassette(path, kind="test", record_mode="new_episodes")
    assert episodes.recording and len(episodes.recorded) == 1
    episodes.record({"request": 2})
    assert len(Cassette(path, kind="test").recorded) == 2
    again = Cassette(path, kind="test", record_mode="all")
    assert again.recording and not again.recorded  # never replays
    assert len(Cassette(path, kind="test").recorded) == 2  # opening alone does not wipe the file
    again.record({"request": 3})
    again.record({"request": 4})
    assert Cassette(path, kind="test").recorded == [{"request": 3}, {"request": 4}]
    with pytest.raises(ConfigError, match="record_mode must be one of 'once', 'none', 'new_episodes', 'all'"):
        Cassette(path, kind="test", record_mode="always")


def test_vcrpy_record_mode_members_are_accepted(tmp_path: Path) -> None:
    from vcr.record_mode import RecordMode

    assert (
        Cassette(tmp_path / "n.jsonl", kind="test", record_mode=RecordMode.NEW_EPISODES).record_mode == "new_episodes"
    )


@pytest.mark.parametrize(
    ("content", "line", "words"),
    [
        (b"", 1, "is empty"),
        (b'{"codex_nb_cassette": 1, "ki', 1, "truncated at line 1"),
        (b"interactions:\n- request:\n", 1, "vcrpy YAML cassette"),
        (b'{"hello": "world"}\n', 1, "not a codex_nb cassette"),
        (b'{"codex_nb_cassette": 1, "kind": "other"}\n', 1, "holds a 'other' recording, not a 'test' one"),
        (b'{"codex_nb_cassette": 1, "kind": "test"}\n{"a": 1}\n{"a": 2', 3, "truncated at line 3"),
        (b'{"codex_nb_cassette": 1, "kind": "test"}\n{"a": 1,}\n{"a": 2}\n', 2, "line 2 is not JSON (hand-edited?)"),
        (b'{"codex_nb_cassette": 1, "kind": "test"}\n[1]\n', 2, "must be a JSON object, got list"),
        (b'{"codex_nb_cassette": "x", "kind": "test"}\n', 1, "not a version number"),
    ],
)
def test_a_bad_file_is_a_cassette_error_naming_the_line(tmp_path: Path, content: bytes, line: int, words: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(CassetteError, match="re-record|restore|delete|Point|own cassette|hand-edited") as info:
        Cassette(path, kind="test")
    assert words in str(info.value) and str(path) in str(info.value)
    assert info.value.line == line and info.value.path == path
    assert isinstance(info.value, CodexNbError)


def test_a_kind_validator_names_the_line(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", {"request": 1}, {"nope": 1})
    with pytest.raises(CassetteError, match=r"line 3: no request \(hand-edited\?\)") as info:
        Cassette(path, kind="test", validate=lambda i: None if "request" in i else "no request")
    assert info.value.line == 3


def test_a_newer_format_says_which_version_and_that_it_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "new.jsonl"
    path.write_text('{"codex_nb_cassette": 99, "kind": "test", "codex_nb_version": "9.0.0"}\n')
    with pytest.raises(CassetteError, match=r"recorded by codex_nb 9\.0\.0 in cassette format 99.*cannot read it"):
        Cassette(path, kind="test")


def test_an_older_codex_nb_version_of_the_same_format_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text('{"codex_nb_cassette": 1, "kind": "test", "codex_nb_version": "0.0.1"}\n{"request": 1}\n')
    cassette = Cassette(path, kind="test")
    assert cassette.recorded == [{"request": 1}] and cassette.header is not None
    assert cassette.header.codex_nb_version == "0.0.1"
    error = cassette.mismatch({"x": 1}, what="request", key="request")
    assert "recorded by codex_nb 0.0.1" in str(error)


def test_a_mismatch_names_the_interaction_shows_a_diff_and_how_to_re_record(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", {"request": {"input": "hello", "model": "m"}})
    error = Cassette(path, kind="test").mismatch({"input": "goodbye", "model": "m"}, what="request", key="request")
    text = str(error)
    assert f"cassette {path}" in text and "interaction 1 (line 2)" in text
    assert "record_mode='new_episodes'" in text and "record_mode='all'" in text
    assert '-  "input": "hello",' in text and '+  "input": "goodbye",' in text


def test_two_threads_writing_one_cassette_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    writers = [Cassette(path, kind="test", record_mode="new_episodes") for _ in range(4)]
    big = "x" * 50_000
    start = threading.Barrier(len(writers))

    def write(n: int) -> None:
        start.wait()
        for i in range(10):
            writers[n].record({"writer": n, "i": i, "pad": big})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(len(writers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = Cassette(path, kind="test").recorded
    assert sorted((line["writer"], line["i"]) for line in lines) == [(n, i) for n in range(4) for i in range(10)]


WRITER = """
import sys
from codex_nb.cassettes.store import Cassette
cassette = Cassette(sys.argv[1], kind="test", record_mode="new_episodes")
for i in range(int(sys.argv[3])):
    cassette.record({"writer": sys.argv[2], "i": i, "pad": "y" * 200_000})
    print(i, flush=True)
"""


def test_two_processes_writing_one_cassette_lose_nothing(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", kind="test")
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "8"], stdout=subprocess.PIPE)
        for name in ("a", "b")
    ]
    for proc in procs:
        proc.communicate(timeout=120)
        assert proc.returncode == 0
    lines = Cassette(path, kind="test").recorded
    assert sorted((line["writer"], line["i"]) for line in lines) == [(w, i) for w in "ab" for i in range(8)]


def test_a_writer_killed_mid_write_leaves_a_complete_file(tmp_path: Path) -> None:
    path = recorded(tmp_path / "c.jsonl", {"writer": "old", "i": 0}, kind="test")
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "k", "100000"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for _ in range(3):  # it has written three times: now kill it, most likely mid-write
        proc.stdout.readline()
    proc.kill()
    proc.communicate(timeout=60)
    lines = Cassette(path, kind="test").recorded  # parses: the old file or a complete new one
    assert lines[0] == {"writer": "old", "i": 0}
    assert [line["i"] for line in lines[1:]] == list(range(len(lines) - 1)) and len(lines) >= 4


def test_scrubbing_masks_secrets_headers_shapes_and_user_filters(tmp_path: Path) -> None:
    scrub = Scrubber(
        secrets=["the-key-1234"],
        headers=["X-Custom"],
        filters=check_filters(["private-word", __import__("re").compile(r"acct-\d+"), str.upper]),
    )
    assert scrub.headers({"Authorization": "Bearer x", "api-key": "k", "X-Custom": "v", "Accept": "a"}) == {
        "Authorization": "***",
        "api-key": "***",
        "X-Custom": "***",
        "Accept": "A",
    }
    assert scrub.value({"a": ["the-key-1234 private-word acct-99 sk-abcdefghijklmnopqrstu"]}) == {
        "a": ["*** *** *** ***"]
    }
    with pytest.raises(ConfigError, match="cassette_filters takes"):
        check_filters([3])


def test_normalising_masks_what_changes_between_runs(tmp_path: Path) -> None:
    norm = normaliser()
    body = {
        "prompt_cache_key": "abc",
        "input": [
            {"text": "<current_time_reminder>It is 2026-01-01 10:00:00 UTC.</current_time_reminder>"},
            {"text": f"id 0b9d3f1e-1111-4222-8333-444455556666 at 2026-12-02T03:04:05.123Z in {tmp_path}/x.py"},
        ],
    }
    assert norm(body) == {
        "prompt_cache_key": "<prompt_cache_key>",
        "input": [
            {"text": "<current_time_reminder><time></current_time_reminder>"},
            {"text": "id <uuid> at <timestamp> in <tmp>/x.py"},
        ],
    }


def test_recording_creates_the_cassette_directory(tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "nested" / "c.jsonl"
    Cassette(path, kind="test").record({"request": 1})
    assert Cassette(path, kind="test").recorded == [{"request": 1}]


def test_recording_never_appends_to_a_file_cut_off_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    cassette = Cassette(path, kind="test", record_mode="new_episodes")
    cassette.record({"request": 1})
    with path.open("ab") as out:
        out.write(b'{"request": 2, "cut')
    with pytest.raises(CassetteError, match="truncated at line 3"):
        cassette.record({"request": 3})
    path.write_text('{"codex_nb_cassette": 1, "kind": "other"}\n')
    with pytest.raises(CassetteError, match="holds a 'other' recording"):
        cassette.record({"request": 3})


def test_record_many_writes_once(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    Cassette(path, kind="test").record_many([{"request": n} for n in range(3)])
    assert [i["request"] for i in Cassette(path, kind="test").recorded] == [0, 1, 2]
