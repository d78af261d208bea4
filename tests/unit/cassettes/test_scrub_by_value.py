"""Every cassette kind masks secrets by value, with one scrubber: the values of the environment's
secret-looking variables (a ``GITHUB_TOKEN`` a person pasted into a prompt, or a model repeated)
and every token codex_nb minted itself (the notebook MCP server's bearer token), whatever its
characters, even a token with no digit that no pattern recognises. A model cassette is recorded
from a real local Responses server; an agent cassette through the recorder the clients use."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.cassettes.rpc_cassette import RpcCassette
from codex_nb.testing import Events, ResponsesServer

from helpers.responses_streams import text_events

GITHUB = "ghp_LetTersOnlyGithubTokenValue"
NO_DIGIT = "LettersOnlyTokenWithNoDigitAtAll-just_letters_and_dashes"
DEAD = "http://127.0.0.1:9/v1"


async def _record(path: Path, prompt: str, answer: str) -> None:
    async with ResponsesServer([Events(text_events(answer[:20], answer[20:]))]) as srv:
        model = cx.ResponsesModel(
            model="local-model", base_url=srv.base_url, api_key="sk-k-0123456789abcdef", cassette=path
        )
        result = await cx.Session().run_turn(prompt, model=model)
    assert result.status == "completed", result.error


async def test_a_model_cassette_masks_the_environments_secret_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB)
    monkeypatch.setenv("SHORT_TOKEN", "1")  # too short to be a secret: "1" stays "1" everywhere
    path = tmp_path / "model.cassette.jsonl"
    prompt = f"push with GITHUB_TOKEN={GITHUB} to branch 1"
    await _record(path, prompt, f"Done: I used the token {GITHUB} for you.")
    text = path.read_text()
    assert GITHUB not in text
    assert "branch 1" in text

    # the replay scrubs the live request the same way, so it still matches, offline
    model = cx.ResponsesModel(model="local-model", base_url=DEAD, cassette=path, record_mode="none")
    result = await cx.Session().run_turn(prompt, model=model)
    assert result.status == "completed", result.error


async def test_a_minted_token_without_a_digit_is_masked_in_model_and_agent_cassettes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # token_urlsafe may draw a token with no digit (about 1 in 1,400 for 32 bytes): this run draws one
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes=None: NO_DIGIT)
    session = cx.Session(config=cx.Config.from_toml("[codex_nb.notebook_tools]\nenabled = true\n"))
    server = await session.serve_notebook_tools()
    try:
        assert server.token == NO_DIGIT
        path = tmp_path / "model.cassette.jsonl"
        await _record(path, f"call it with Authorization: Bearer {server.token}", f"ok, token {server.token} noted")
        assert NO_DIGIT not in path.read_text()

        agent = RpcCassette(tmp_path / "agent.jsonl", "all", who="a test peer", env={}, named={})
        assert agent.recorder is not None
        agent.recorder.received('{"jsonrpc":"2.0","method":"note","params":{"text":"Bearer %s"}}\n' % NO_DIGIT)
        agent.recorder.sent({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"token": NO_DIGIT}})
        await agent.recorder.save()
        written = (tmp_path / "agent.jsonl").read_text()
        assert NO_DIGIT not in written and "echo" in written
    finally:
        await server.aclose()
        await session.aclose()


def test_a_minted_token_is_masked_in_a_model_servers_error_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from codex_nb._secrets import mint_token
    from codex_nb.responses.redact import redact

    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes=None: NO_DIGIT + "-error")
    token = mint_token()
    assert redact(f"401: the token {token} is not ours") == "401: the token *** is not ours"
