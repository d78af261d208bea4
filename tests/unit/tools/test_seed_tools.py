"""web.run and image_gen.imagegen: their gates, a person's handler, and the provider's endpoints
over real HTTP (a local ResponsesServer with routes). What the binary does for the same configs
and calls is pinned by the conformance scenarios ``seed_*``; the texts below are the binary's."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

import codex_nb as cx
from codex_nb.errors import ToolCallError
from codex_nb.testing import HttpError, ResponsesServer
from codex_nb.tools.handlers.image_gen import HINT, ImageGenTool
from codex_nb.tools.handlers.seed_tools import recorded_specs
from codex_nb.tools.handlers.web_run import NO_ROUTE, WebRunTool

WEB = "[features]\nstandalone_web_search = true\n"


def png(w: int = 2, h: int = 2) -> bytes:
    raw = b"".join(b"\x00" + bytes((0, 0, 255, 255)) * w for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def config(top: str = "", provider: str = "", base_url: str = "http://127.0.0.1:9/v1", model: str = "gpt-5.5"):
    return cx.Config.from_toml(
        f'model = "{model}"\nmodel_provider = "local"\n{top}\n[model_providers.local]\nname = "local"\n'
        f'base_url = "{base_url}"\nenv_key = "SEED_TEST_KEY"\n{provider}'
    )


def declared(cfg) -> list[str]:
    return [
        n for n in cx.Session(cfg).planner.plan().tool_names if n in ("web.run", "image_gen.imagegen", "web_search")
    ]


@pytest.mark.parametrize(
    "top, provider, expected",
    [
        (WEB, "supports_standalone_web_search = true", ["web.run"]),  # replaces the hosted search
        ("", "supports_standalone_web_search = true", ["web_search"]),  # the feature is off by default
        (WEB, "", ["web_search"]),  # the provider must support it
        ('web_search = "disabled"\n' + WEB, "supports_standalone_web_search = true", []),
        ("", 'http_headers = { "x-openai-actor-authorization" = "a" }', ["image_gen.imagegen", "web_search"]),
        (
            "[features]\nimage_generation = false\n",
            'http_headers = { "x-openai-actor-authorization" = "a" }',
            ["web_search"],
        ),
        ("", 'requires_openai_auth = true\nhttp_headers = { "x-openai-actor-authorization" = "a" }', ["web_search"]),
        ("", 'experimental_bearer_token = "k"', ["web_search"]),  # a key alone does not open image_gen
    ],
)
def test_gates_are_the_binarys(top, provider, expected):
    assert declared(config(top, provider)) == expected


def test_specs_are_the_recorded_ones():
    plan = cx.Session(
        config(WEB, 'supports_standalone_web_search = true\nhttp_headers = { "x-openai-actor-authorization" = "a" }')
    ).planner.plan()
    spaces = {s["name"]: s for s in plan.specs if s.get("type") == "namespace"}
    assert spaces["web"] == {
        "type": "namespace",
        "name": "web",
        "description": "Tools in the web namespace.",
        "tools": [recorded_specs()["web"]["tool"]],
    }
    assert spaces["image_gen"]["tools"] == [recorded_specs()["image_gen"]["tool"]]
    commands = recorded_specs()["web"]["tool"]["parameters"]["properties"]
    assert {"search_query", "open", "find", "click", "screenshot", "image_query"} <= set(commands)


def test_a_provider_table_may_say_it_supports_standalone_search():
    # an unknown key of a provider table is an error: this one is Codex's
    model = cx.ResponsesModel.from_config(config(provider="supports_standalone_web_search = true"), api_key="k")
    assert model.provider.supports_standalone_web_search is True


async def run(session, calls, **kw):
    model = cx.ScriptedModel([calls, [cx.assistant_message("done")]])
    return await session.run_turn("find codex", model=model, **kw)


async def test_web_run_with_a_handler_gets_codexs_request_and_answers_as_a_list():
    session = cx.Session(config(WEB, "supports_standalone_web_search = true", model="gpt-5.1-codex"))
    seen = []

    async def search(request):
        seen.append(request)
        return "results: " + request["commands"]["search_query"][0]["q"]

    session.set_handler("web.run", search)
    result = await run(
        session, [cx.function_call("run", {"search_query": [{"q": "codex"}], "x": 1}, call_id="w", namespace="web")]
    )
    item = next(i for i in session.history if i.get("type") == "function_call_output")
    assert item["output"] == [{"type": "input_text", "text": "results: codex"}]  # not collapsed to a string
    assert result.status == "completed"
    assert seen == [
        {
            "id": session.thread_id,
            "model": "gpt-5.1-codex",
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "find codex"}]}],
            "commands": {"search_query": [{"q": "codex"}]},  # unknown keys dropped, as Codex does
            "settings": {"allowed_callers": ["direct"], "external_web_access": False},
            "max_output_tokens": 2500,  # a model outside the catalog
        }
    ]


async def test_web_run_argument_errors_are_serdes(monkeypatch):
    session = cx.Session(config(WEB, "supports_standalone_web_search = true"))
    session.set_handler("web.run", lambda request: "never")
    calls = [
        cx.function_call("run", "[1, 2]", call_id="a", namespace="web"),
        cx.function_call("run", "null", call_id="b", namespace="web"),
        cx.function_call("run", {"response_length": "huge"}, call_id="c", namespace="web"),
    ]
    out = (await run(session, calls)).outputs()
    assert out["a"] == "invalid type: integer `1`, expected a sequence at line 1 column 2"
    assert out["b"] == "invalid type: null, expected struct SearchCommands at line 1 column 4"
    assert out["c"] == "unknown variant `huge`, expected one of `short`, `medium`, `long` at line 1 column 25"


async def test_a_failing_handler_answers_the_model_and_the_turn_goes_on():
    session = cx.Session(config(WEB, "supports_standalone_web_search = true"))

    def broken(request):
        raise RuntimeError("search service down")

    session.set_handler("web.run", broken)
    result = await run(session, [cx.function_call("run", {"open": [{"ref_id": "u"}]}, call_id="w", namespace="web")])
    assert result.outputs()["w"] == "web.run handler failed: RuntimeError: search service down"
    assert result.status == "completed"


def test_set_handler_names_the_tools_and_their_gates():
    session = cx.Session(config())
    with pytest.raises(ToolCallError, match="web.run or image_gen.imagegen, and only when the config declares"):
        session.set_handler("web.run", print)


@pytest.mark.slow
async def test_web_run_goes_to_the_providers_alpha_search_with_its_key(monkeypatch):
    monkeypatch.setenv("SEED_TEST_KEY", "sk-seed-secret")
    with ResponsesServer([], routes={"alpha/search": lambda body: {"output": "found " + body["model"]}}) as srv:
        session = cx.Session(
            config('web_search = "live"\n' + WEB, "supports_standalone_web_search = true", srv.base_url)
        )
        result = await run(
            session, [cx.function_call("run", {"search_query": [{"q": "q"}]}, call_id="w", namespace="web")]
        )
    assert result.outputs()["w"] == [{"type": "input_text", "text": "found gpt-5.5"}]
    ((path, body),) = srv.route_requests
    assert path == "/v1/alpha/search" and body["settings"]["external_web_access"] is True
    assert body["max_output_tokens"] == 10000  # a catalog model's budget


@pytest.mark.slow
async def test_a_provider_that_refuses_is_answered_as_codex_words_it(monkeypatch):
    monkeypatch.setenv("SEED_TEST_KEY", "sk-seed-secret")
    refusal = HttpError(403, {"error": {"message": "no search for sk-seed-secret"}})
    with ResponsesServer([], routes={"alpha/search": lambda body: refusal}) as srv:
        session = cx.Session(config(WEB, "supports_standalone_web_search = true", srv.base_url))
        result = await run(
            session, [cx.function_call("run", {"search_query": [{"q": "q"}]}, call_id="w", namespace="web")]
        )
    text = result.outputs()["w"]
    assert text.startswith('http 403 Forbidden: Some("{\\"error\\"')
    assert "sk-seed-secret" not in text  # the key never reaches the model


@pytest.mark.slow
async def test_a_provider_answer_without_output_text_is_named(monkeypatch):
    monkeypatch.setenv("SEED_TEST_KEY", "k")
    with ResponsesServer([], routes={"alpha/search": lambda body: {"output": 5}}) as srv:
        session = cx.Session(config(WEB, "supports_standalone_web_search = true", srv.base_url))
        result = await run(session, [cx.function_call("run", {}, call_id="w", namespace="web")])
    assert result.outputs()["w"] == "the provider's alpha/search answer `output` must return text (str), got int"


async def test_no_route_says_what_to_do():
    tool = WebRunTool()
    session = cx.Session(config(WEB, "supports_standalone_web_search = true"))
    session.registry.unregister("web.run")
    session.registry.register(tool, source="builtin")  # no backend wired
    result = await run(session, [cx.function_call("run", {}, call_id="w", namespace="web")])
    assert result.outputs()["w"] == NO_ROUTE


ACTOR = 'http_headers = { "x-openai-actor-authorization" = "actor" }'


def image_session(tmp_path, base_url="http://127.0.0.1:9/v1", model="gpt-5.5"):
    session = cx.Session(config("", ACTOR, base_url, model=model), cwd=str(tmp_path))
    session.registry.get("image_gen.imagegen").tool.save_root = tmp_path / "home"
    return session


@pytest.mark.slow
async def test_image_gen_goes_to_the_images_api_and_saves_the_image(tmp_path, monkeypatch):
    monkeypatch.setenv("SEED_TEST_KEY", "k")
    b64 = base64.b64encode(png()).decode()
    with ResponsesServer([], routes={"images/generations": lambda body: {"data": [{"b64_json": b64}]}}) as srv:
        session = image_session(tmp_path, srv.base_url)
        await run(session, [cx.function_call("imagegen", {"prompt": "blue"}, call_id="img1", namespace="image_gen")])
    ((path, body),) = srv.route_requests
    assert path == "/v1/images/generations"
    assert body == {"prompt": "blue", "background": "opaque", "model": "gpt-image-2", "quality": "auto", "size": "auto"}
    saved = tmp_path / "home" / "generated_images" / session.thread_id / "img1.png"
    assert saved.read_bytes() == png()
    item = next(i for i in session.history if i.get("type") == "function_call_output")
    assert item["output"] == [
        {"type": "input_image", "image_url": f"data:image/png;base64,{b64}", "detail": "original"},
        {"type": "input_text", "text": HINT.format(dir=saved.parent, path=saved)},
    ]


async def test_image_gen_edits_a_referenced_file_relative_to_cwd(tmp_path):
    (tmp_path / "in.png").write_bytes(png(1, 1))
    seen = []
    session = image_session(tmp_path)
    session.set_handler("image_gen.imagegen", lambda body: seen.append(body) or png())
    args = {"prompt": "redder", "referenced_image_paths": ["in.png"], "transparent_background": True}
    await run(session, [cx.function_call("imagegen", args, call_id="e", namespace="image_gen")])
    assert seen == [
        {
            "images": [{"image_url": "data:image/png;base64," + base64.b64encode(png(1, 1)).decode()}],
            "prompt": "redder",
            "background": "transparent",
            "model": "gpt-image-2",
            "quality": "auto",
            "size": "auto",
        }
    ]


async def test_image_gen_errors(tmp_path):
    session = image_session(tmp_path, model="gpt-5.1-codex")
    (tmp_path / "notes.txt").write_text("not an image")
    session.set_handler("image_gen.imagegen", lambda body: "")
    calls = [
        cx.function_call("imagegen", "{oops", call_id="a", namespace="image_gen"),
        cx.function_call("imagegen", {"prompt": "x", "size": "big"}, call_id="b", namespace="image_gen"),
        cx.function_call("imagegen", {}, call_id="c", namespace="image_gen"),
        cx.function_call(
            "imagegen", {"prompt": "x", "num_last_images_to_include": 1}, call_id="d", namespace="image_gen"
        ),
        cx.function_call(
            "imagegen", {"prompt": "x", "referenced_image_paths": ["gone.png"]}, call_id="e", namespace="image_gen"
        ),
        cx.function_call(
            "imagegen", {"prompt": "x", "referenced_image_paths": ["notes.txt"]}, call_id="f", namespace="image_gen"
        ),
        cx.function_call("imagegen", {"prompt": "x"}, call_id="g", namespace="image_gen"),
        cx.function_call("imagegen", {"prompt": "x", "gif": {}}, call_id="h", namespace="image_gen"),
    ]
    out = (await run(session, calls)).outputs()
    assert out["a"] == "key must be a string at line 1 column 2"
    assert out["b"] == (
        "unknown field `size`, expected one of `prompt`, `gif`, `transparent_background`, "
        "`referenced_image_paths`, `num_last_images_to_include` at line 1 column 20"
    )
    assert out["c"] == "missing field `prompt` at line 1 column 2"
    assert out["d"] == "requested the last 1 conversation images, but only 0 were available"
    assert (
        out["e"]
        == f"unable to read referenced image at `{tmp_path / 'gone.png'}`: No such file or directory (os error 2)"
    )
    assert out["f"].startswith(f"unable to process referenced image at `{tmp_path / 'notes.txt'}`")
    assert out["g"] == "image generation returned no image data"
    assert out["h"] == "GIF output is unavailable in this session."


async def test_a_hostile_call_id_cannot_escape_the_images_folder(tmp_path):
    session = image_session(tmp_path)
    session.set_handler("image_gen.imagegen", lambda body: png())
    await run(session, [cx.function_call("imagegen", {"prompt": "x"}, call_id="../../escape", namespace="image_gen")])
    assert not (tmp_path / "escape.png").exists()
    saved = list((tmp_path / "home" / "generated_images").rglob("*.png"))
    assert len(saved) == 1 and saved[0].parent.parent == tmp_path / "home" / "generated_images"


async def test_recent_images_feed_an_edit(tmp_path):
    seen = []
    session = image_session(tmp_path)
    session.set_handler("image_gen.imagegen", lambda body: seen.append(body) or png())
    first = cx.function_call("imagegen", {"prompt": "a"}, call_id="one", namespace="image_gen")
    again = cx.function_call(
        "imagegen", {"prompt": "b", "num_last_images_to_include": 1}, call_id="two", namespace="image_gen"
    )
    model = cx.ScriptedModel([[first], [again], [cx.assistant_message("done")]])
    await session.run_turn("draw", model=model)
    assert "images" not in seen[0]
    assert seen[1]["images"] == [{"image_url": "data:image/png;base64," + base64.b64encode(png()).decode()}]


def test_specs_keep_the_binarys_key_order():
    # the recording sorts keys; the copy codex_nb declares from keeps the request body's order
    for tool in (ImageGenTool(), WebRunTool()):
        spec = tool.spec()
        assert list(spec) == ["type", "name", "description", "strict", "parameters"]
        assert json.loads(json.dumps(spec)) == spec
    assert list(ImageGenTool().spec()["parameters"]) == ["type", "properties", "required", "additionalProperties"]


async def test_a_plain_handler_runs_off_the_event_loop():
    # a handler that waits (on a search service, say) must not stall the kernel's loop: here it
    # waits for the loop itself to answer, which only a handler in a worker thread lets happen
    import asyncio
    import threading

    started, go = threading.Event(), threading.Event()

    def waiting(request):
        started.set()
        return "answered" if go.wait(timeout=10) else "the loop was blocked"

    async def release():
        await asyncio.to_thread(started.wait, 10)
        go.set()

    session = cx.Session(config(WEB, "supports_standalone_web_search = true"))
    session.set_handler("web.run", waiting)
    releaser = asyncio.ensure_future(release())
    result = await run(session, [cx.function_call("run", {}, call_id="w", namespace="web")])
    await releaser
    assert result.outputs()["w"] == [{"type": "input_text", "text": "answered"}]
