"""ResponsesModel configured like Codex: config.toml keys, Codex's defaults and messages."""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.protocol.model import ModelRequest
from codex_nb.responses.provider import CHAT_WIRE_API_REMOVED_ERROR
from codex_nb.testing import ResponsesServer

PROVIDER = """
model = "qwen3"
model_provider = "local"
model_reasoning_effort = "low"
model_reasoning_summary = "detailed"
[model_providers.local]
name = "Local vLLM"
base_url = "{url}"
env_key = "LOCAL_LLM_KEY"
query_params = {{ api-version = "2025-04-01" }}
http_headers = {{ X-Team = "notebooks" }}
env_http_headers = {{ X-Project = "LOCAL_PROJECT", X-Unset = "LOCAL_UNSET" }}
request_max_retries = 2
stream_max_retries = 7
stream_idle_timeout_ms = 1500
"""


async def test_every_provider_key_reaches_the_request(monkeypatch) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local-key")
    monkeypatch.setenv("LOCAL_PROJECT", "proj-7")
    monkeypatch.delenv("LOCAL_UNSET", raising=False)
    async with ResponsesServer([[cx.assistant_message("hi")]]) as srv:
        url = srv.base_url
        model = cx.ResponsesModel.from_config(PROVIDER.format(url=url))
        await cx.Session().run_turn("hello", model=model)
    provider = model.provider
    assert (provider.id, provider.name) == ("local", "Local vLLM")
    assert (
        provider.effective_request_max_retries,
        provider.effective_stream_max_retries,
        provider.stream_idle_timeout,
    ) == (2, 7, 1.5)
    headers = srv.headers[0]
    assert headers["authorization"] == "Bearer sk-local-key"
    assert headers["x-team"] == "notebooks" and headers["x-project"] == "proj-7" and "x-unset" not in headers
    assert srv.paths == ["/v1/responses?api-version=2025-04-01"]
    assert srv.requests[0]["model"] == "qwen3"
    assert srv.requests[0]["reasoning"] == {"effort": "low", "summary": "detailed"}
    assert repr(model) == (
        f"ResponsesModel(model='qwen3', provider='local', base_url='{url}', api_key=set from LOCAL_LLM_KEY)"
    )


async def test_query_params_are_appended_to_the_url() -> None:
    async with ResponsesServer([[cx.assistant_message("ok")]]) as srv:
        model = cx.ResponsesModel(model="m", base_url=srv.base_url, query_params={"api-version": "v1"})
        request = ModelRequest(turn_id="t", items=[], tools=[], tool_generation=0)
        assert await model.sample(request) == [cx.assistant_message("ok")]
    assert srv.paths == ["/v1/responses?api-version=v1"]


def test_codex_defaults_and_caps() -> None:
    model = cx.ResponsesModel(model="m", base_url="http://127.0.0.1:9/v1")
    assert (
        model.provider.effective_request_max_retries,
        model.provider.effective_stream_max_retries,
        model.provider.stream_idle_timeout,
    ) == (4, 5, 300.0)
    capped = cx.ResponsesModel(
        model="m", base_url="http://127.0.0.1:9/v1", request_max_retries=500, stream_max_retries=1000
    )
    assert (capped.provider.effective_request_max_retries, capped.provider.effective_stream_max_retries) == (100, 100)
    body = model.request_body(ModelRequest(turn_id="t", items=[], tools=[], tool_generation=0, thread_id="th"))
    assert body["reasoning"] == {"summary": "auto"}  # Codex: summary auto, effort only when configured
    no_summary = cx.ResponsesModel(model="m", base_url="http://x/v1", reasoning_summary="none", reasoning_effort="high")
    assert no_summary.request_body(ModelRequest(turn_id="t", items=[], tools=[], tool_generation=0))["reasoning"] == {
        "effort": "high"
    }


def test_wire_api_chat_is_rejected_with_codexs_message() -> None:
    toml = 'model = "m"\nmodel_provider = "old"\n[model_providers.old]\nbase_url = "http://x/v1"\nwire_api = "chat"\n'
    with pytest.raises(cx.ConfigError) as caught:
        cx.ResponsesModel.from_config(toml)
    assert str(caught.value) == CHAT_WIRE_API_REMOVED_ERROR
    assert str(caught.value).startswith('`wire_api = "chat"` is no longer supported.\nHow to fix: set `wire_api = ')


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('model = "m"\nmodel_provider = "nope"\n', "model_provider 'nope' is not defined"),
        ('model_provider = "ollama"\n', "the config sets no model"),
        (
            'model = "m"\nmodel_provider = "p"\n[model_providers.p]\nbase_url = "http://x"\ntimeout = 3\n',
            "[model_providers.p] has unknown key(s) ['timeout']",
        ),
        (
            'model = "m"\nmodel_provider = "p"\n[model_providers.p]\nbase_url = "http://x"\nstream_max_retries = -1\n',
            "stream_max_retries must be an integer >= 0",
        ),
        (
            'model = "m"\n[model_providers.openai]\nbase_url = "http://x"\n',
            "cannot replace Codex's built-in `openai` provider",
        ),
        ('model = "m"\nmodel_reasoning_effort = "extreme"\n', "model_reasoning_effort must be one of"),
        (
            'model = "m"\nmodel_provider = "p"\n[model_providers.p]\nbase_url = "http://x"\nwire_api = "grpc"\n',
            "unknown variant `grpc`, expected `responses`",
        ),
    ],
)
def test_bad_config_says_what_to_fix(toml: str, message: str, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    with pytest.raises(cx.ConfigError, match=None) as caught:
        cx.ResponsesModel.from_config(toml)
    assert message in str(caught.value)


def test_missing_env_key_uses_codexs_text_and_instructions(monkeypatch) -> None:
    monkeypatch.delenv("MY_KEY", raising=False)
    toml = (
        'model = "m"\nmodel_provider = "p"\n[model_providers.p]\nbase_url = "http://x/v1"\nenv_key = "MY_KEY"\n'
        'env_key_instructions = "Create one at https://example.test/keys."\n'
    )
    with pytest.raises(cx.ConfigError) as caught:
        cx.ResponsesModel.from_config(toml)
    assert str(caught.value) == "Missing environment variable: `MY_KEY`. Create one at https://example.test/keys."


async def test_builtin_openai_provider_reads_openai_api_key_and_base_url(monkeypatch) -> None:
    async with ResponsesServer([[cx.assistant_message("from openai")]]) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_PROJECT", "proj-1")
        model = cx.ResponsesModel.from_config('model = "gpt-5.1-codex"\n')
        result = await cx.Session().run_turn("hi", model=model)
    assert result.last_agent_message == "from openai"
    assert model.provider.id == "openai"
    assert srv.headers[0]["authorization"] == "Bearer sk-openai-env"
    assert srv.headers[0]["openai-project"] == "proj-1"
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(cx.ConfigError, match="Missing environment variable: `OPENAI_API_KEY`."):
        cx.ResponsesModel(model="gpt-5.1-codex")


def test_builtin_oss_providers_need_no_key(monkeypatch) -> None:
    monkeypatch.delenv("CODEX_OSS_BASE_URL", raising=False)
    monkeypatch.delenv("CODEX_OSS_PORT", raising=False)
    ollama = cx.ResponsesModel.from_config('model = "gpt-oss:20b"\nmodel_provider = "ollama"\n')
    assert ollama.provider.resolved_base_url() == "http://localhost:11434/v1"
    lmstudio = cx.ResponsesModel(model="m", provider="lmstudio")
    assert lmstudio.provider.resolved_base_url() == "http://localhost:1234/v1"
    assert repr(lmstudio).endswith("api_key=none)")


def test_profiles_override_the_top_level_keys(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    toml = 'model = "gpt-5.1-codex"\n[profiles.local]\nmodel = "llama3"\nmodel_provider = "ollama"\n'
    model = cx.ResponsesModel.from_config(toml, profile="local")
    assert (model.model, model.provider.id) == ("llama3", "ollama")
    with pytest.raises(cx.ConfigError, match=r"profile 'fast' not found: add a \[profiles.fast\] table"):
        cx.ResponsesModel.from_config(toml, profile="fast")
