"""``view_image``: show the model a local image file (Codex 0.169 ``codex-rs/core/src/tools/handlers/view_image.rs``).

Checks, in Codex's order, each answered with Codex's exact text: the model accepts
images (``[codex_nb] image_input = false`` says it does not); a Function payload; the
arguments parse (unknown keys ignored); ``detail`` is absent, ``high`` or ``original``;
the path (resolved against the session's cwd) exists, is a file, can be read; the bytes
decode as an image (Pillow; Codex's message for anything else is ``unable to process
image: invalid or unsupported image data``). The answer is one ``input_image`` item
with a ``data:`` URL of the file's own bytes and MIME type. ``detail`` is ``original``
when the model supports original detail (``[codex_nb] image_detail_original``, on by
default, as for Codex's current models), else ``high``.

The file may be hostile: Codex reads it whole, codex_nb reads it through ``codex_nb._files``
(the guard every path-taking tool shares): at most ``MAX_IMAGE_BYTES`` (a larger file is refused
from its size, unread), opened without blocking and checked with ``fstat`` (a FIFO swapped in
after the ``stat`` cannot block), a NUL byte in the path answered as Codex's ``std::fs`` does;
and it refuses a decompression bomb. The read and the decode run on a sync worker thread: a slow disk or a large image
never stalls the kernel's event loop.
"""

from __future__ import annotations

import base64
import io
import os
import time
from typing import TYPE_CHECKING, Any

from ..._files import FileRefused, read_regular
from ...protocol.events import ItemCompleted, ItemStarted
from ..arguments import parse_object, require_str
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec
from ..threads import sync_workers

if TYPE_CHECKING:
    from ...config import Config

VIEW_IMAGE_DESCRIPTION = (
    "View a local image file from the filesystem when visual inspection is needed. Use this for "
    "images already available on disk."
)
UNSUPPORTED_IMAGE = "unable to process image: invalid or unsupported image data"
MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""codex_nb's bound (Codex has none): far above a screenshot or a photo; its base64 alone is ~27 MB of request."""
_MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "GIF": "image/gif",
    "WEBP": "image/webp",
    "BMP": "image/bmp",
    "TIFF": "image/tiff",
    "ICO": "image/x-icon",
}


def view_image_tools(config: Config) -> list[Tool]:
    if not config.view_image:
        return []
    own = config.extra.get("codex_nb", {}) if isinstance(config.extra, dict) else {}
    own = own if isinstance(own, dict) else {}
    return [
        ViewImageTool(
            image_input=own.get("image_input", True) is not False,
            detail_original=own.get("image_detail_original", True) is not False,
        )
    ]


class ViewImageTool(Tool):
    is_control_tool = True
    output_schema = {  # what a nested Code Mode call resolves to (shown in the exec description)
        "type": "object",
        "properties": {
            "detail": {
                "type": "string",
                "description": (
                    "Image detail hint returned by view_image. Returns `high` for default resized behavior or "
                    "`original` when original resolution is preserved."
                ),
                "enum": ["high", "original"],
            },
            "image_url": {"type": "string", "description": "Data URL for the loaded image."},
        },
        "required": ["detail", "image_url"],
        "additionalProperties": False,
    }

    def __init__(self, *, image_input: bool = True, detail_original: bool = True) -> None:
        super().__init__("view_image", supports_parallel=True)
        self.image_input = image_input
        self.detail_original = detail_original

    def spec(self) -> dict[str, Any]:
        return function_spec(
            "view_image",
            VIEW_IMAGE_DESCRIPTION,
            {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Local filesystem path to an image file."}},
                "required": ["path"],
                "additionalProperties": False,
            },
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if not self.image_input:
            raise RespondToModel("view_image is not allowed because you do not support image inputs")
        if invocation.call.payload.kind != "function":
            raise RespondToModel("view_image handler received unsupported payload")
        path, detail = parse_arguments(invocation.payload_text)
        # string operations only (expanduser reads $HOME); the file is read by read_image_file
        resolved = os.path.normpath(os.path.join(invocation.turn.cwd, os.path.expanduser(path)))  # noqa: ASYNC240
        data, mime = await sync_workers().run(load_image, resolved)
        turn = invocation.turn
        item = {"type": "imageView", "id": invocation.call_id, "path": resolved}
        await invocation.emit(
            ItemStarted(
                thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, started_at_ms=int(time.time() * 1000)
            )
        )
        await invocation.emit(
            ItemCompleted(
                thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, completed_at_ms=int(time.time() * 1000)
            )
        )
        shown = "original" if self.detail_original and detail in (None, "original") else "high"
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return ToolOutput(
            body=[{"type": "input_image", "image_url": url, "detail": shown}],
            code_mode_result={"image_url": url, "detail": shown},
        )


def parse_arguments(text: str) -> tuple[str, str | None]:
    raw = parse_object(text, "ViewImageArgs")
    path = require_str(raw, "path")
    detail = raw.get("detail")
    if detail is not None and detail not in ("high", "original"):
        raise RespondToModel(
            "view_image.detail only supports `high` or `original`; omit `detail` for default high "
            f"resized behavior, got `{detail}`"
        )
    return path, detail


def load_image(path: str) -> tuple[bytes, str]:
    """The file's bytes and MIME type (blocking: run it on a worker thread)."""
    data = read_image_file(path)
    return data, image_mime(data)


def read_image_file(path: str) -> bytes:
    try:
        return read_regular(path, limit=MAX_IMAGE_BYTES)
    except FileRefused as refused:
        if refused.step == "locate":
            raise RespondToModel(f"unable to locate image at `{path}`: {refused.reason}") from None
        if refused.step == "kind":
            raise RespondToModel(f"image path `{path}` is not a file") from None
        if refused.step == "size":
            raise RespondToModel(_too_big(path, refused.size, more=refused.grew)) from None
        raise RespondToModel(f"unable to read image at `{path}`: {refused.reason}") from None


def _too_big(path: str, size: int, *, more: bool = False) -> str:
    shown = f"more than {size - 1}" if more else str(size)
    return (
        f"unable to read image at `{path}`: the file is {shown} bytes, more than the {MAX_IMAGE_BYTES // (1024 * 1024)} "
        "MiB view_image reads; view a smaller copy (resized or compressed)"
    )


def image_mime(data: bytes) -> str:
    """The MIME type of decodable image bytes; Codex's error for anything Pillow cannot decode."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
            fmt = image.format or ""
    except Image.DecompressionBombError as err:  # a few bytes claiming billions of pixels
        raise RespondToModel(f"unable to process image: {err}; view a smaller copy (resized)") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise RespondToModel(UNSUPPORTED_IMAGE) from None
    mime = _MIME.get(fmt)
    if mime is None:
        raise RespondToModel(UNSUPPORTED_IMAGE)
    return mime
