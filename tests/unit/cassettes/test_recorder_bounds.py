"""A peer that floods a recording does not grow it without bound: past the limit nothing more is
kept, nothing is written, and the old cassette stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_nb.errors import CassetteError
from codex_nb.cassettes import format as fmt
from codex_nb.cassettes.rpc_cassette import RpcCassette
from codex_nb.cassettes import rpc_recorder as recorder_module


def _recording(path: Path) -> RpcCassette:
    cassette = RpcCassette(path, "all", who="a test peer", env={}, named={})
    assert cassette.recorder is not None
    return cassette


@pytest.mark.parametrize("limit", ["messages", "bytes"])
async def test_a_flood_is_not_kept_and_the_old_cassette_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"the old cassette\n")
    if limit == "messages":
        monkeypatch.setattr(recorder_module, "MAX_MESSAGES", 10)
    else:
        monkeypatch.setattr(fmt, "MAX_FILE_BYTES", 1000)
    recorder = _recording(path).recorder
    for n in range(50):
        recorder.received(b'{"jsonrpc":"2.0","method":"flood","params":{"n":%d,"pad":"%s"}}\n' % (n, b"x" * 40))
    assert recorder.overflow and len(recorder.conversation.entries) <= 10
    with pytest.raises(CassetteError, match="so it was not written"):
        await recorder.save()
    assert path.read_bytes() == b"the old cassette\n"
