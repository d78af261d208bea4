"""A hand-edited conversation cassette replays as a hostile peer would talk: the client's own
checks see every line, and nothing in the file can crash the replay itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.errors import CassetteError

HEADER = {"codex_nb_cassette": 1, "kind": "jsonrpc", "codex_nb_version": "0.1.0"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "clientInfo": {"name": "codex_nb", "title": "codex_nb", "version": "9.9"},
        "capabilities": {"experimentalApi": True},
    },
}


def _write(path: Path, *entries: dict) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in (HEADER, *entries)), encoding="utf-8")
    return path


async def test_ids_of_any_json_type_and_raw_lines_are_played_as_a_peer_would_send_them(tmp_path: Path) -> None:
    cassette = _write(
        tmp_path / "edited.jsonl",
        {"meta": {"codex_version": "0.169.0"}},
        {"send": INITIALIZE},
        {"recv": {"id": [1], "result": {}}},  # an unhashable id: the client logs an unknown response
        {"recv_raw": "this is not JSON"},
        {"recv": {"id": 1, "result": {"userAgent": "edited"}}},
        {"send": {"jsonrpc": "2.0", "method": "initialized"}},
    )
    async with cx.CodexAppServer(binary="/no/such/codex", cassette=cassette, record_mode="none") as server:
        assert server.initialize_result == {"userAgent": "edited"} and server.version == "0.169.0"
        with pytest.raises(CassetteError, match=r"the recording ends here \(all 5 recorded messages were replayed\)"):
            await server.start_thread(cwd=tmp_path)


@pytest.mark.slow  # about 0.7 s here, starting and closing the replayed agent
async def test_an_acp_cassette_recorded_before_a_new_client_capability_still_replays(tmp_path: Path) -> None:
    """The client capabilities codex_nb offers grow (form elicitation); a cassette recorded with fewer
    replays, since the agent's recorded side does not depend on them and every answer is still compared."""
    old = {"fs": {"readTextFile": True, "writeTextFile": True}}
    initialize = {"protocolVersion": 1, "clientCapabilities": old, "clientInfo": {"name": "codex_nb", "version": "0"}}
    cassette = _write(
        tmp_path / "acp.jsonl",
        {"send": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}},
        {"recv": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "agentCapabilities": {}}}},
    )
    async with cx.AcpAgent("/no/such/agent", cassette=cassette, record_mode="none") as agent:
        await agent.start()
        assert agent.form_elicitation and agent.info.protocol_version == 1
