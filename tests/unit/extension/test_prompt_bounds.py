"""Every documented cap holds where the prompt is built, and an image goes only when its bytes are
an image of the type it is sent as: ``--cells`` judged from its bounds (a typo of a billion cells
costs nothing), Send to agent's cells plus ``--cells`` counted together, a page that sends more
cells than it says were selected refused, and an image that is not base64, random bytes, a GIF
under a PNG key or a ``_repr_png_`` that raises left out with the reason said to the person and
the agent alike."""

from __future__ import annotations

import base64
import os
import tracemalloc
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension
from codex_nb.extension.context import (
    MAX_CELLS,
    Attachment,
    Attachments,
    ContextError,
    collect,
    describe,
    notebook_cells,
    parse_cells,
    turn_input,
)
from codex_nb.extension.image_bytes import ImageRefused, check, from_base64
from codex_nb.app_server.thread import CODEX_CAPABILITIES as CODEX
from helpers.images import image, image_b64


def test_a_huge_cells_range_is_refused_from_its_bounds() -> None:
    tracemalloc.start()
    try:
        for spec in ("1-2000000", "1-1000000000", "3,1-99999999999999999999"):
            with pytest.raises(ContextError, match=f"at most {MAX_CELLS} at once"):
                parse_cells(spec)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 200_000  # nothing was expanded (1-2000000 alone would be ~70 MB)
    with pytest.raises(ContextError, match="at most 50 cells at once"):
        parse_cells(",".join(["1"] * 10_000))
    assert parse_cells("3,2-4,3") == [3, 2, 4]  # each once, in the order named


def _cell(index: int, source: str = "pass", outputs: list[Any] | None = None) -> dict[str, Any]:
    return {"index": index, "id": f"c{index}", "cell_type": "code", "source": source,
            "execution_count": index + 1, "outputs": outputs or []}  # fmt: skip


async def test_send_to_agent_plus_cells_is_held_to_the_cap(shell: InteractiveShell) -> None:
    state = extension.agent(shell)
    assert state is not None
    state.attach_cells([_cell(i) for i in range(MAX_CELLS)])
    for i in range(3):
        shell.run_cell(f"v{i} = {i}", store_history=True)
    shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("never")]])
    with pytest.raises(UsageError, match=f"the attachments hold {MAX_CELLS + 2} cells, more than the {MAX_CELLS}"):
        shell.run_cell_magic("codex", "--model m --cells 1-2", "hi")
    assert state.turns == [] and shell.user_ns["m"].remaining == 1 and len(state.pending_cells) == MAX_CELLS


def test_a_page_that_sends_more_cells_than_it_selected_is_refused(shell: InteractiveShell) -> None:
    state = extension.agent(shell)
    assert state is not None
    state.connect_page()
    for sent in (3, MAX_CELLS + 10):
        message = {"kind": "attach", "id": "p", "page": "p", "selected": 1, "cells": [_cell(i) for i in range(sent)]}
        state.bridge._on_message(state.bridge, message, [])
        status = state.bridge.attach_status
        assert not status["ok"] and f"the page sent {sent} cells but said 1 were selected" in status["text"]
        assert state.pending_cells == []


def test_the_prompt_builder_enforces_the_caps_on_any_attachments() -> None:
    many = Attachments(items=[Attachment(kind="cell", label=f"cell {i}", text="x") for i in range(MAX_CELLS + 1)])
    with pytest.raises(ContextError, match="more than the 50 one prompt may carry"):
        turn_input(cx.Session().capabilities, "hi", many)
    gif = "data:image/png;base64," + image_b64("GIF")
    forged = Attachments(items=[Attachment(kind="image", label="chart", text="an image", image=gif)])
    text, options = turn_input(CODEX, "look", forged)
    assert options == {} and "[chart]\n(image left out: its bytes are GIF, not PNG)" in text
    assert forged.notes == ["chart was left out: its bytes are GIF, not PNG"]


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("not base64 at all!", "its data is not valid base64"),
        (base64.b64encode(os.urandom(300)).decode(), "its bytes are no image format (not PNG)"),
        (image_b64("GIF"), "its bytes are GIF, not PNG"),
        (base64.b64encode(image("PNG")[:-20]).decode(), "its PNG data is cut short"),
        (["iVBORw0KGgo="], "its data is not base64 text"),
    ],
)
def test_an_output_image_that_is_not_what_its_key_says_is_left_out(data: Any, why: str) -> None:
    output = {"output_type": "display_data", "data": {"image/png": data, "text/plain": "<Figure>"}, "metadata": {}}
    found = notebook_cells([_cell(0, "plot()", [output])])
    assert found.images == []
    assert any(why in note and "image of the output of notebook cell 1 (In [1])" in note for note in found.notes)
    text, options = turn_input(CODEX, "look", found)
    assert options == {} and "image left out: " + why in text and "data:image/png" not in text


class Raises:
    def _repr_png_(self) -> bytes:
        raise RuntimeError("no backend")

    def __repr__(self) -> str:
        return "<Raises>"


class Gif:
    def _repr_png_(self) -> bytes:
        return image("GIF")


class Text:
    def _repr_png_(self) -> str:
        return image_b64("PNG")


def test_a_repr_png_that_raises_or_is_no_png_leaves_the_image_out_and_says_why() -> None:
    notes: list[str] = []
    raised = describe("fig", Raises(), notes)
    assert (
        raised.image is None
        and raised.text == "(its image was left out: making it raised RuntimeError: no backend)\n<Raises>"
    )
    gif = describe("anim", Gif(), notes)
    assert gif.image is None and "its bytes are GIF, not PNG" in gif.text
    assert notes == [
        "fig: its image was left out: making it raised RuntimeError: no backend",
        "anim: its image was left out: its bytes are GIF, not PNG",
    ]
    assert describe("t", Text(), notes).image == "data:image/png;base64," + image_b64("PNG")  # IPython takes base64 too
    found = collect({"fig": Raises()}, variables="fig")
    assert found.images == [] and found.notes[0].startswith("fig: its image was left out")


def test_real_images_pass_and_broken_ones_say_what_is_wrong() -> None:
    for fmt, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg")):
        check(image(fmt, (40, 30)), mime)
        whole = image(fmt, (40, 30))
        with pytest.raises(ImageRefused, match="cut short"):
            check(whole[: len(whole) // 2], mime)
    png = bytearray(image("PNG"))
    png[20] ^= 0xFF  # inside IHDR: its CRC no longer matches
    with pytest.raises(ImageRefused, match="fails its CRC"):
        check(bytes(png), "image/png")
    with pytest.raises(ImageRefused, match="its bytes are PNG, not JPEG"):
        from_base64(image_b64("PNG"), "image/jpeg")


def test_a_png_that_announces_billions_of_pixels_is_refused_before_inflating() -> None:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 6, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1_000_000, 9))
    with pytest.raises(ImageRefused, match="100,000 x 100,000 pixels, more than the 40,000,000"):
        check(bomb + chunk(b"IEND", b""), "image/png")
