"""The last seed tools: ``web.run`` (feature ``standalone_web_search``) and ``image_gen.imagegen``
(feature ``image_generation``): which config declares each (their gates), their specs, and the
requests a call sends to the provider's own endpoints (``alpha/search``, ``images/*``)."""

from __future__ import annotations

import base64
import struct
import zlib

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE, call

WEB_ON = UPDATE_PLAN_ON + "\n[features]\nstandalone_web_search = true\n"
WEB_PROVIDER = "supports_standalone_web_search = true\n"
ACTOR = 'http_headers = { "x-openai-actor-authorization" = "actor" }\n'
SEARCH_ANSWER = {"output": "Search results for codex: [turn0search0] OpenAI Codex (github.com/openai/codex)"}


def _png() -> str:
    """A 2x2 blue PNG, base64: the image the local Images endpoint answers with."""
    raw = b"".join(b"\x00" + bytes((0, 0, 255, 255)) * 2 for _ in range(2))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 2, 2, 8, 6, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


IMAGE_ANSWER = {"created": 1, "data": [{"b64_json": _png()}]}


def web(call_id: str, arguments: object) -> dict[str, object]:
    return call("run", arguments, call_id, namespace="web")


def imagegen(call_id: str, arguments: object) -> dict[str, object]:
    return call("imagegen", arguments, call_id, namespace="image_gen")


SCENARIOS = [
    # -- web.run: gates ------------------------------------------------------------------
    Scenario(name="seed_web_run_declared", config=WEB_ON, provider=WEB_PROVIDER, responses=[DONE], tags=("seed",)),
    Scenario(name="seed_web_run_feature_off", provider=WEB_PROVIDER, responses=[DONE], tags=("seed",)),
    Scenario(name="seed_web_run_provider_off", config=WEB_ON, responses=[DONE], tags=("seed",)),
    Scenario(
        name="seed_web_run_search_disabled",
        config='web_search = "disabled"\n' + WEB_ON,
        provider=WEB_PROVIDER,
        responses=[DONE],
        tags=("seed",),
    ),
    Scenario(
        name="seed_web_run_catalog_model",
        model="gpt-5.5",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        responses=[DONE],
        tags=("seed",),
    ),
    # -- web.run: calls, answered by the provider's alpha/search --------------------------
    Scenario(
        name="seed_web_run_search_and_open",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[
            [web("w1", {"search_query": [{"q": "codex"}], "open": [{"ref_id": "https://example.com"}]})],
            DONE,
        ],
    ),
    Scenario(
        name="seed_web_run_live_find",
        config='web_search = "live"\n' + WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[
            [web("w1", {"find": [{"ref_id": "turn0search0", "pattern": "Codex"}], "response_length": "short"})],
            DONE,
        ],
    ),
    Scenario(
        name="seed_web_run_two_calls",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[[web("w1", {"search_query": [{"q": "a"}]})], [web("w2", {"search_query": [{"q": "b"}]})], DONE],
    ),
    Scenario(
        name="seed_web_run_provider_refuses",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={},
        responses=[[web("w1", {"search_query": [{"q": "codex"}]})], DONE],
    ),
    Scenario(
        name="seed_web_run_bad_json",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[[web("w1", "{oops")], DONE],
    ),
    Scenario(
        name="seed_web_run_not_an_object",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[[web("w1", "[1, 2]")], DONE],
    ),
    # -- image_gen.imagegen: gates -----------------------------------------------------------
    Scenario(name="seed_image_gen_declared", provider=ACTOR, responses=[DONE], tags=("seed",)),
    Scenario(
        name="seed_image_gen_feature_off",
        config=UPDATE_PLAN_ON + "\n[features]\nimage_generation = false\n",
        provider=ACTOR,
        responses=[DONE],
        tags=("seed",),
    ),
    Scenario(
        name="seed_image_gen_requires_openai_auth",
        provider=ACTOR + "requires_openai_auth = true\n",
        responses=[DONE],
        tags=("seed",),
    ),
    Scenario(
        name="seed_image_gen_bearer_token_only",
        provider='experimental_bearer_token = "gateway-key"\n',
        responses=[DONE],
        tags=("seed",),
    ),
    Scenario(
        name="seed_both_declared",
        config=WEB_ON,
        provider=WEB_PROVIDER + ACTOR,
        responses=[DONE],
        tags=("seed",),
    ),
    # -- image_gen.imagegen: calls, answered by the provider's Images API --------------------
    Scenario(
        name="seed_image_gen_generate",
        provider=ACTOR,
        routes={"images/generations": IMAGE_ANSWER},
        responses=[[imagegen("img1", {"prompt": "a blue square", "transparent_background": True})], DONE],
    ),
    Scenario(
        name="seed_image_gen_bad_args",
        provider=ACTOR,
        routes={"images/generations": IMAGE_ANSWER},
        responses=[
            [
                imagegen("img1", "{oops"),
                imagegen("img2", {"prompt": "x", "size": "big"}),
                imagegen("img3", {}),
                imagegen("img4", {"prompt": "x", "referenced_image_paths": [], "num_last_images_to_include": 1}),
            ],
            DONE,
        ],
    ),
    Scenario(
        name="seed_image_gen_no_image_data",
        provider=ACTOR,
        routes={"images/generations": {"created": 1, "data": []}},
        responses=[[imagegen("img1", {"prompt": "nothing"})], DONE],
    ),
]

# How web.run reads its arguments (serde into Codex's commands struct) and what it forwards.
_ARGUMENT_CASES = {
    "unknown_key": {"nope": 1, "search_query": [{"q": "a"}]},
    "query_not_a_list": {"search_query": "codex"},
    "bad_response_length": {"response_length": "huge"},
    "empty_object": {},
    "null": "null",
    "empty_array": "[]",
    "keys_out_of_order": {
        "time": [{"utc_offset": "+03:00"}],
        "click": [{"ref_id": "r", "id": 1}],
        "open": [{"ref_id": "u"}],
    },
    "extra_query_key": {"search_query": [{"q": "a", "extra": True}]},
}
SCENARIOS += [
    Scenario(
        name=f"seed_web_run_args_{name}",
        config=WEB_ON,
        provider=WEB_PROVIDER,
        routes={"alpha/search": SEARCH_ANSWER},
        responses=[[web("w1", arguments)], DONE],
    )
    for name, arguments in _ARGUMENT_CASES.items()
]

# Code Mode: both tools stay direct; what exec's description says of them
SCENARIOS += [
    Scenario(
        name="seed_code_mode",
        config=UPDATE_PLAN_ON + "\n[features]\nstandalone_web_search = true\ncode_mode = true\n",
        provider=WEB_PROVIDER + ACTOR,
        responses=[DONE],
        tags=("seed", "code_mode"),
    ),
    Scenario(
        name="seed_code_mode_only",
        config=UPDATE_PLAN_ON + "\n[features]\nstandalone_web_search = true\ncode_mode = true\ncode_mode_only = true\n",
        provider=WEB_PROVIDER + ACTOR,
        responses=[DONE],
        tags=("seed", "code_mode"),
        skip=("tool_spec[default:exec]",),
        why="the binary nests its own shell, agent and goal tools; each tool both nest is compared (exec_nested_tool)",
    ),
]
