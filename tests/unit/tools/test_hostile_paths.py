"""Hostile paths given to every tool that reads one (the notebook tools take none: they name
cells): a NUL byte, a FIFO with no writer, a device that never ends, a directory, a huge (sparse)
file, a symbolic-link loop, a missing file. Each is
an answer the model reads, in the tool's own words, never a failed turn or a hang (the FIFO would
block an open or a read forever: every turn is bounded by ``asyncio.wait_for`` so that a hang is
a failure, not a stuck run). The hooks file a person names meets the same guard."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.errors import HookError
from codex_nb.tools.handlers.image_gen import MAX_IMAGE_BYTES as GEN_LIMIT
from codex_nb.tools.handlers.view_image import MAX_IMAGE_BYTES as VIEW_LIMIT

BOUND = 60  # seconds a turn may take before the test calls it a hang


@pytest.fixture
def hostile(tmp_path: Path) -> dict[str, str]:
    os.mkfifo(tmp_path / "pipe.png")
    (tmp_path / "pics").mkdir()
    with open(tmp_path / "huge.png", "wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: huge to stat, nothing on disk
    (tmp_path / "loop.png").symlink_to(tmp_path / "loop.png")
    return {
        "nul": str(tmp_path / "a\0b.png"),
        "fifo": str(tmp_path / "pipe.png"),
        "device": "/dev/zero",
        "directory": str(tmp_path / "pics"),
        "huge": str(tmp_path / "huge.png"),
        "loop": str(tmp_path / "loop.png"),
        "missing": str(tmp_path / "gone.png"),
    }


async def _turn(session: cx.Session, calls: list[Any]) -> dict[str, Any]:
    model = cx.ScriptedModel([calls, [cx.assistant_message("done")]])
    result = await asyncio.wait_for(session.run_turn("look", model=model), BOUND)
    assert result.status == "completed", result.error
    return result.outputs()


async def test_view_image_answers_every_hostile_path(tmp_path: Path, hostile: dict[str, str]) -> None:
    session = cx.Session(cx.Config(view_image=True), cwd=str(tmp_path))
    out = await _turn(session, [cx.function_call("view_image", {"path": p}, call_id=k) for k, p in hostile.items()])
    h = hostile
    assert out == {
        "nul": f"unable to locate image at `{h['nul']}`: file name contained an unexpected NUL byte",
        "fifo": f"image path `{h['fifo']}` is not a file",
        "device": "image path `/dev/zero` is not a file",
        "directory": f"image path `{h['directory']}` is not a file",
        "huge": f"unable to read image at `{h['huge']}`: the file is {64 * 1024 * 1024} bytes, more than the "
        f"{VIEW_LIMIT // (1024 * 1024)} MiB view_image reads; view a smaller copy (resized or compressed)",
        "loop": f"unable to locate image at `{h['loop']}`: Too many levels of symbolic links (os error 40)",
        "missing": f"unable to locate image at `{h['missing']}`: No such file or directory (os error 2)",
    }


async def test_image_gen_answers_every_hostile_reference(tmp_path: Path, hostile: dict[str, str]) -> None:
    config = cx.Config.from_toml(  # image_gen is offered behind an actor header (see test_seed_tools)
        'model = "gpt-5.5"\nmodel_provider = "local"\n[model_providers.local]\nname = "local"\n'
        'base_url = "http://127.0.0.1:9/v1"\nenv_key = "SEED_TEST_KEY"\n'
        'http_headers = { "x-openai-actor-authorization" = "actor" }\n'
    )
    session = cx.Session(config, cwd=str(tmp_path))
    session.set_handler("image_gen.imagegen", lambda body: pytest.fail(f"the image API was called: {body}"))
    calls = [
        cx.function_call("imagegen", {"prompt": "x", "referenced_image_paths": [p]}, call_id=k, namespace="image_gen")
        for k, p in hostile.items()
    ]
    out = await _turn(session, calls)
    h = hostile
    assert out == {
        "nul": f"unable to read referenced image at `{h['nul']}`: file name contained an unexpected NUL byte",
        "fifo": f"unable to read referenced image at `{h['fifo']}`: not a regular file: a FIFO (named pipe)",
        "device": "unable to read referenced image at `/dev/zero`: not a regular file: a character device",
        "directory": f"unable to read referenced image at `{h['directory']}`: Is a directory (os error 21)",
        "huge": f"unable to process referenced image at `{h['huge']}`: larger than {GEN_LIMIT // (1024 * 1024)} MiB",
        "loop": f"unable to read referenced image at `{h['loop']}`: Too many levels of symbolic links (os error 40)",
        "missing": f"unable to read referenced image at `{h['missing']}`: No such file or directory (os error 2)",
    }


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("nul", "file name contained an unexpected NUL byte"),
        ("fifo", "is a FIFO (named pipe), not a regular file"),
        ("device", "is a character device, not a regular file"),
        ("huge", "is larger than 4 MiB"),
        ("loop", "Too many levels of symbolic links (os error 40)"),
        ("missing", "does not exist"),
    ],
)
def test_a_hooks_file_path_is_refused_with_its_reason(hostile: dict[str, str], kind: str, why: str) -> None:
    # a directory is a config layer to load hooks from, so it is no refusal here
    with pytest.raises(HookError) as caught:
        cx.Session().load_hooks(hostile[kind])
    assert why in str(caught.value), caught.value


@pytest.mark.parametrize("kind", ["nul", "fifo", "directory", "huge", "loop", "missing"])
async def test_an_acp_agents_file_read_is_refused_with_its_reason(hostile: dict[str, str], kind: str) -> None:
    from codex_nb.acp.fs import ConfinedFiles, FileAccessError

    files = ConfinedFiles(os.path.dirname(hostile["fifo"]))  # the session directory: every name is inside
    with pytest.raises(FileAccessError) as caught:
        await asyncio.wait_for(asyncio.to_thread(files.read, hostile[kind]), BOUND)
    assert hostile[kind] in str(caught.value) or repr(hostile[kind]) in str(caught.value), caught.value


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode bits say")
async def test_an_unreadable_image_is_an_answer(tmp_path: Path) -> None:
    locked = tmp_path / "locked.png"
    locked.write_bytes(b"\x89PNG\r\n\x1a\n")
    locked.chmod(0)
    session = cx.Session(cx.Config(view_image=True), cwd=str(tmp_path))
    out = await _turn(session, [cx.function_call("view_image", {"path": str(locked)}, call_id="v")])
    assert out == {"v": f"unable to read image at `{locked}`: Permission denied (os error 13)"}
