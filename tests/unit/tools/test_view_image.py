"""view_image: Codex 0.169's spec, errors and output, with real files decoded by Pillow."""

from __future__ import annotations

import base64
import json
import os
import sys
import threading

import pytest
from PIL import Image

import codex_nb as cx
from codex_nb.render.images import image_thumbnails
from helpers.paths import CODEX_0169_TOOLS

FIXTURE = json.loads(CODEX_0169_TOOLS.read_text())


@pytest.fixture
def workdir(tmp_path):
    Image.new("RGB", (40, 30), (200, 0, 0)).save(tmp_path / "red.png")
    (tmp_path / "notes.txt").write_text("not an image")
    (tmp_path / "pics").mkdir()
    return tmp_path


def test_spec_matches_codex():
    codex = next(t for t in FIXTURE["tools"] if t.get("name") == "view_image")
    plan = cx.Session(cx.Config.from_toml("")).planner.plan()  # on by default in Codex
    assert next(s for s in plan.specs if s.get("name") == "view_image") == codex


async def run(session, arguments):
    model = cx.ScriptedModel(
        [
            [cx.function_call("view_image", a, call_id=f"c{i}") for i, a in enumerate(arguments)],
            [cx.assistant_message("seen")],
        ]
    )
    return (await session.run_turn("look", model=model)).outputs()


async def test_errors_are_codex_exact(workdir):
    session = cx.Session(cx.Config(view_image=True), cwd=str(workdir))
    out = await run(
        session,
        [
            {"path": "nope.png"},
            {"path": str(workdir / "pics")},
            {"path": "notes.txt"},
            {"path": "red.png", "detail": "low"},
            "{not json",
        ],
    )
    assert out["c0"] == f"unable to locate image at `{workdir / 'nope.png'}`: No such file or directory (os error 2)"
    assert out["c1"] == f"image path `{workdir / 'pics'}` is not a file"
    assert out["c2"] == "unable to process image: invalid or unsupported image data"
    assert out["c3"] == (
        "view_image.detail only supports `high` or `original`; omit `detail` for default high "
        "resized behavior, got `low`"
    )
    assert out["c4"].startswith("failed to parse function arguments")
    codex = {i["call_id"]: i["output"] for i in FIXTURE["view_image_outputs"]}  # Codex ran in /tmp/tx
    for ours, theirs in (("c0", "c6"), ("c2", "c8"), ("c3", "c9")):
        assert out[ours].replace(str(workdir), "/tmp/tx") == codex[theirs]


async def test_output_is_an_input_image_data_url(workdir):
    session = cx.Session(cx.Config(view_image=True), cwd=str(workdir))
    events = []
    session.subscribe(events.append)
    model = cx.ScriptedModel(
        [[cx.function_call("view_image", {"path": "red.png"}, call_id="v")], [cx.assistant_message("red")]]
    )
    result = await session.run_turn("look", model=model)
    [part] = result.outputs()["v"]
    assert part["type"] == "input_image" and part["detail"] == "original"
    prefix = "data:image/png;base64,"
    assert part["image_url"].startswith(prefix)
    assert base64.b64decode(part["image_url"][len(prefix) :]) == (workdir / "red.png").read_bytes()
    views = [e.msg.item for e in events if e.msg.type in ("item_started", "item_completed")]
    assert views == [{"type": "imageView", "id": "v", "path": str(workdir / "red.png")}] * 2
    thumbs = image_thumbnails(result)
    assert len(thumbs) == 1 and 'src="data:image/png;base64,' in thumbs._repr_html_()


async def test_model_without_image_input(workdir):
    session = cx.Session(cx.Config(view_image=True, extra={"codex_nb": {"image_input": False}}), cwd=str(workdir))
    out = await run(session, [{"path": "red.png"}])
    assert out["c0"] == "view_image is not allowed because you do not support image inputs"


def test_feature_off_removes_the_tool():
    session = cx.Session(cx.Config.from_toml("[features]\nview_image = false"))
    assert "view_image" not in session.planner.plan().tool_names
    assert "view_image" not in cx.Session(cx.Config()).planner.plan().tool_names  # the notebook profile


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG signature and IHDR announcing ``width`` x ``height`` pixels, with no pixel data."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")


def _touch(path):
    path.touch()
    return path


async def test_hostile_files_are_refused_with_a_reason(workdir):
    from codex_nb.tools.handlers.view_image import MAX_IMAGE_BYTES

    os.truncate(_touch(workdir / "huge.png"), MAX_IMAGE_BYTES + 1)  # sparse: refused from its size, never read
    (workdir / "bomb.png").write_bytes(_png_claiming(100_000, 100_000))
    os.mkfifo(workdir / "fifo.png")
    session = cx.Session(cx.Config(view_image=True), cwd=str(workdir))
    out = await run(session, [{"path": "huge.png"}, {"path": "bomb.png"}, {"path": "fifo.png"}])
    assert out["c0"] == (
        f"unable to read image at `{workdir / 'huge.png'}`: the file is {MAX_IMAGE_BYTES + 1} bytes, more than the "
        "20 MiB view_image reads; view a smaller copy (resized or compressed)"
    )
    assert out["c1"] == (
        "unable to process image: Image size (10000000000 pixels) exceeds limit of 178956970 pixels, could be "
        "decompression bomb DOS attack.; view a smaller copy (resized)"
    )
    assert out["c2"] == f"image path `{workdir / 'fifo.png'}` is not a file"


_OPENED_ON: dict[str, int] = {}


def _record_opens(event: str, args: tuple[object, ...]) -> None:
    # an audit hook cannot be removed: it only records opens of paths a test registered
    if event == "open" and isinstance(args[0], str) and args[0] in _OPENED_ON:
        _OPENED_ON[args[0]] = threading.get_ident()


async def test_the_file_is_read_off_the_event_loop(workdir):
    """A slow disk (a network mount, a huge file) must never stall the kernel's loop."""
    if _record_opens not in _HOOKED:
        sys.addaudithook(_record_opens)
        _HOOKED.append(_record_opens)
    target = str(workdir / "red.png")
    _OPENED_ON[target] = 0
    session = cx.Session(cx.Config(view_image=True), cwd=str(workdir))
    out = await run(session, [{"path": "red.png"}])
    assert out["c0"][0]["type"] == "input_image"
    assert _OPENED_ON.pop(target) not in (0, threading.get_ident())


_HOOKED: list[object] = []
