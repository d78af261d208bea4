"""The supported Codex range: a binary outside it gets one clear error (version, range, fix), the
features a release offers follow from the range's method table, and the merged schema accepts what
the oldest release sends. The out-of-range binaries are stand-in executables that only report a
version (``codex --version``); the protocol checks run on the real pinned binary."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.app_server import binary as binaries
from codex_nb.app_server import versions
from codex_nb.app_server.process import live_process_groups
from codex_nb.app_server.schema import SchemaValidator, protocol
from codex_nb.testing import pinned_codex_version

from helpers.app_server_helpers import plan_call, real_codex
from helpers.paths import ROOT


def stand_in(tmp_path: Path, version: str) -> Path:
    """An executable that answers ``--version`` as Codex ``version`` would (and nothing else)."""
    path = tmp_path / f"codex-{version}"
    path.write_text(f"#!/bin/sh\necho 'codex-cli {version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_the_range_is_the_compat_lists_first_and_last_release_and_ends_at_the_pin() -> None:
    listed = [
        line.strip()
        for line in (ROOT / ".ci" / "codex-compat-versions").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert binaries.supported_range() == (listed[0], listed[-1]) == ("0.160.0", pinned_codex_version())
    assert versions.checked_releases() == listed  # protocol.json was merged from exactly these


async def test_a_binary_older_than_the_range_is_refused_with_version_range_and_fix(tmp_path: Path) -> None:
    binary = stand_in(tmp_path, "0.150.0")
    before = live_process_groups()
    server = cx.CodexAppServer(binary=binary, codex_home=tmp_path / "home")
    with pytest.raises(binaries.CodexVersionError) as caught:
        await server.start()
    message = str(caught.value)
    oldest, newest = binaries.supported_range()
    assert f"is Codex 0.150.0, older than the releases codex_nb supports ({oldest} .. {newest})" in message
    assert f"npm install -g @openai/codex@{newest}" in message
    assert isinstance(caught.value, cx.app_server.CodexBinaryError)  # what callers already catch
    assert (caught.value.version, caught.value.oldest, caught.value.newest) == ("0.150.0", oldest, newest)
    assert caught.value.__cause__ is None and caught.value.__context__ is None  # no traceback from deep inside
    assert server.process is None and live_process_groups() == before  # nothing was started


async def test_a_binary_newer_than_the_range_runs_with_a_warning_naming_the_range(tmp_path: Path) -> None:
    """A person's weekly-updated Codex is not refused: it is started, with a warning that says it
    is past the checked range. The stand-in only answers --version, so the start then fails on
    the protocol, with the app-server's own error, after the warning."""
    binary = stand_in(tmp_path, "0.172.0")
    before = live_process_groups()
    server = cx.CodexAppServer(binary=binary, codex_home=tmp_path / "home")
    oldest, newest = binaries.supported_range()
    with pytest.warns(cx.app_server.CodexVersionWarning) as warned:
        with pytest.raises(cx.app_server.AppServerError):
            await server.start()
    message = str(warned[0].message)
    assert (
        f"Codex 0.172.0 is newer than the releases codex_nb is checked against ({oldest} .. {newest}); it runs"
        in message
    )
    assert f"npm install -g @openai/codex@{newest}" in message
    assert server.version == "0.172.0"
    await server.close()
    assert live_process_groups() == before  # what the start spawned is gone
    assert binaries.newer_release_note(newest) is None and binaries.newer_release_note(None) is None


@pytest.mark.parametrize("version", ["0.160.0", "0.165.0", "0.169.0", "0.171.0"])
def test_every_release_of_the_range_passes_the_version_check(tmp_path: Path, version: str) -> None:
    from codex_nb.app_server.binary import check_version

    assert check_version(stand_in(tmp_path, version)) == version


def test_features_follow_the_method_table() -> None:
    assert all(versions.features_of("0.160.0").values())
    assert all(versions.features_of(pinned_codex_version()).values())
    assert not any(versions.features_of("0.150.0").values())  # before the range nothing is known to be there
    assert all(versions.features_of(None).values())  # no version (a cassette without one): nothing hidden on a guess
    assert versions.method_since("thread/search/stream") == "0.171.0"  # one the pin's range added
    assert versions.method_since("no/such/method") is None


def test_every_method_codex_nb_uses_is_in_the_merged_schema_and_dated_by_the_range() -> None:
    """The schema subset describes every method a feature rests on, so the range's method table
    (merged from every release) says which releases have it, and what Codex sends or codex_nb
    sends with it is validated. Every one is in every release of the range (the binaries of
    ``.ci/compat --schema`` say so: none is in ``methods_since`` or ``methods_until``)."""
    proto = protocol()
    tables = ("client_requests", "notifications", "server_requests")
    described = {m for t in tables for m in proto[t]}
    assert set(versions.FEATURES.values()) <= described
    span = proto["range"]
    oldest = span["oldest"]
    for method in described:
        assert method not in span["methods_until"], method
        assert versions.method_since(method) == span["methods_since"].get(method, oldest), method
    assert described & set(span["methods_since"]) == set()


def test_fields_newer_releases_added_are_optional_and_say_since_when() -> None:
    defs = protocol()["definitions"]
    assert defs["Turn"]["properties"]["rootTurnId"]["x-codex-since"] == "0.162.1"
    assert "rootTurnId" not in defs["Turn"].get("required", [])
    validator = SchemaValidator()
    turn = {"id": "t1", "items": [], "status": "completed", "error": None}
    assert validator.errors("Turn", turn) == []  # the 0.160 shape, without rootTurnId
    assert validator.errors("Turn", {**turn, "rootTurnId": "t0"}) == []


@pytest.mark.requires_codex
async def test_the_real_binary_reports_version_and_features_and_forks_and_lists(tmp_path: Path) -> None:
    script = [[plan_call([("look", "completed")], call_id="p1")], [cx.assistant_message("hello")]]
    async with real_codex(script, tmp_path / "home", allow_leftover=True) as (server, _srv):
        assert server.version == pinned_codex_version()
        assert server.features == dict.fromkeys(versions.FEATURES, True)
        thread = await server.start_thread(cwd=tmp_path)
        # the thread's capabilities say what its server does with saved threads
        assert thread.capabilities.sessions == ("list", "resume", "fork")
        assert (await thread.start_turn("say hello")).status == "completed"
        listed = await server.list_threads(limit=10)
        assert thread.thread_id in [t["id"] for t in listed["data"]]
        fork = await server.fork_thread(thread.thread_id, cwd=tmp_path)
        assert fork.thread_id != thread.thread_id and fork.info["thread"].get("forkedFromId") == thread.thread_id
        with pytest.raises(
            binaries.CodexVersionError, match=r"does not offer thread/nope: it answered .*supports Codex"
        ):
            await server.request_feature("thread/nope", {})
        assert server.connection.schema_errors == []


@pytest.mark.requires_codex
async def test_a_method_the_server_refuses_is_marked_missing(tmp_path: Path) -> None:
    async with real_codex([], tmp_path / "home") as (server, _srv):
        server.version = "0.171.0"
        # as a build without thread/fork would answer: the real server's own refusal of an unknown method
        with pytest.raises(binaries.CodexVersionError):
            await server.request_feature("thread/nope", {})
        assert "thread/nope" in server._refused
        server._refused.add("thread/fork")
        assert server.features["thread/fork"] is False
        thread = await server.start_thread(cwd=tmp_path)
        assert thread.capabilities.sessions == ("list", "resume")  # no Fork offered where the release lacks it
        with pytest.raises(binaries.CodexVersionError, match="does not offer thread/fork"):
            await server.fork_thread("x")
