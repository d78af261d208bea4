"""``image_gen.imagegen``: image generation and editing, a function tool the provider's Images API answers.

Gate, as the pinned binary (0.171) decides it: ``[features] image_generation`` (on by
default), a model that takes image input, and a provider that Codex may send images
requests to: one that authorises by an ``x-openai-actor-authorization`` header in its
``http_headers`` without ``requires_openai_auth``, or (Codex only) a ChatGPT login on a paid
plan. An API key alone, or a bearer token, does not open it. The spec is the binary's,
byte for byte (``seed_tool_specs.json``).

A call goes where Codex sends it: ``POST {base_url}/images/generations`` (no reference
images) or ``images/edits`` (``referenced_image_paths`` read from disk, or the
``num_last_images_to_include`` most recent images of the conversation) with
``model = "gpt-image-2"``; the first ``data[].b64_json`` is saved under
``$CODEX_HOME/generated_images/THREAD/CALL.png`` and given to the model as an image plus
Codex's hint text. A person may give a ``handler`` instead (``session.set_handler("image_gen.imagegen", handler)``):
it receives the same body and returns the image as base64 PNG text (or PNG bytes).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ..._files import FileRefused, read_regular
from ...protocol.serde import SerdeError, parse_exact
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from .web_search import CATALOG_TEXT_AND_IMAGE
from .seed_tools import (
    Backend,
    Handler,
    call_handler,
    recorded_specs,
)
from .seed_tools import image_gen_enabled as image_gen_enabled  # the gate lives with the light shared part

if TYPE_CHECKING:
    from ...config import Config

NAMESPACE = "image_gen"
NAME = "imagegen"
IMAGE_MODEL = "gpt-image-2"
GENERATIONS_PATH = "images/generations"
EDITS_PATH = "images/edits"
MAX_IMAGE_BYTES = 32 * 1024 * 1024
"""A generated or referenced image larger than this is refused (a bound of ours)."""
BOTH_GIVEN = "provide only one of `referenced_image_paths` or `num_last_images_to_include`"
NO_GIF = "GIF output is unavailable in this session."
NO_IMAGE = "image generation returned no image data"
UNPROCESSABLE = "image content omitted because it could not be processed"
NO_ROUTE = (
    "image_gen.imagegen has no route: this session has no provider to send the request to; give it a "
    "handler (session.set_handler('image_gen.imagegen', handler)) or use a provider Codex sends images requests to"
)
HINT = (
    "Generated images are saved to {dir} as {path} by default.\n"
    "If you need to use a generated image at another path, copy it and leave the original in place unless "
    "the user explicitly asks you to delete it.\n"
    "The generated image is already displayed to the user. There is no need to render it in the final "
    "response as a Markdown image or file link."
)
_SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_MAGIC = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif"}


class GifOptions(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    frame_count: int | None = None
    frame_duration_ms: int | None = None


class ImagegenArgs(BaseModel):
    """Codex's ``ImagegenArgs`` (unknown fields rejected, in its field order)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    prompt: str
    gif: GifOptions | None = None
    transparent_background: bool | None = None
    referenced_image_paths: list[str] | None = None
    num_last_images_to_include: int | None = None


def image_gen_tools(config: Config) -> list[Tool]:
    return [ImageGenTool()] if image_gen_enabled(config) else []


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or "~/.codex").expanduser()


def mime_of(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in _MAGIC.items() if data.startswith(magic)), None)


def recent_images(history: list[dict[str, Any]], count: int) -> list[str]:
    """The image URLs of the ``count`` most recent images in the conversation, oldest first."""
    urls: list[str] = []
    for item in history:
        content = item.get("content") if item.get("type") == "message" else item.get("output")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
                urls.append(part["image_url"])
    return urls[-count:] if count > 0 else []


class ImageGenTool(Tool):
    """``image_gen.imagegen``: one image, generated or edited, by the provider or a handler."""

    # What a Code Mode script gets back; rendered into the exec declaration (conformance seed_code_mode).
    output_schema = {
        "type": "object",
        "properties": {"image_url": {"type": "string"}, "output_hint": {"type": "string"}},
        "required": ["image_url"],
    }

    def __init__(self, *, handler: Handler | None = None, save_root: Path | None = None) -> None:
        specs = recorded_specs()["image_gen"]
        super().__init__(NAME, namespace=NAMESPACE, namespace_description=specs["namespace_description"])
        self.handler = handler
        """``handler(request) -> base64 PNG text or bytes``: answers instead of the provider."""
        self.backend: Backend | None = None
        """The provider route (``path, body -> JSON``), wired by the runtime from the config."""
        self.save_root = save_root
        """Where images are saved (default ``$CODEX_HOME``, else ``~/.codex``): ``generated_images/THREAD/CALL.png``."""

    def spec(self) -> dict[str, Any]:
        return dict(recorded_specs()["image_gen"]["tool"])

    def parse(self, text: str) -> ImagegenArgs:
        try:
            return parse_exact(ImagegenArgs, text)
        except SerdeError as err:
            raise RespondToModel(str(err)) from None

    def image_request(self, args: ImagegenArgs, invocation: ToolInvocation) -> tuple[str, dict[str, Any]]:
        """The provider path and the body Codex sends (its key order)."""
        if args.gif is not None:
            raise RespondToModel(NO_GIF)
        if args.referenced_image_paths and args.num_last_images_to_include is not None:  # [] counts as absent
            raise RespondToModel(BOTH_GIVEN)
        images = self._reference_images(args, invocation)
        body: dict[str, Any] = {"images": [{"image_url": url} for url in images]} if images else {}
        body |= {
            "prompt": args.prompt,
            "background": "transparent" if args.transparent_background else "opaque",
            "model": IMAGE_MODEL,
            "quality": "auto",
            "size": "auto",
        }
        return (EDITS_PATH if images else GENERATIONS_PATH), body

    def _reference_images(self, args: ImagegenArgs, invocation: ToolInvocation) -> list[str]:
        if args.num_last_images_to_include is not None:
            count = max(0, args.num_last_images_to_include)
            found = recent_images(invocation.turn.history or [], count)
            if len(found) < count:
                raise RespondToModel(
                    f"requested the last {count} conversation images, but only {len(found)} were available"
                )
            return found
        return [self._read_image(p, invocation.turn.cwd) for p in args.referenced_image_paths or []]

    @staticmethod
    def _read_image(path_text: str, cwd: str) -> str:
        """Blocking (``handle`` runs it on a worker thread): through the one path guard, so a NUL
        byte, a FIFO, a device or a directory is an answer, never a crash or a hang."""
        path = str(Path(cwd, path_text))
        try:
            data = read_regular(path, limit=MAX_IMAGE_BYTES, stat_first=False)
        except FileRefused as refused:
            if refused.step == "size":
                raise RespondToModel(f"unable to process referenced image at `{path}`: larger than 32 MiB") from None
            raise RespondToModel(f"unable to read referenced image at `{path}`: {refused.reason}") from None
        mime = mime_of(data)
        if mime is None:
            raise RespondToModel(f"unable to process referenced image at `{path}`: not a PNG, JPEG, GIF or WebP image")
        return f"data:{mime};base64,{base64.b64encode(data).decode()}"

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        args = self.parse(invocation.payload_text)
        # files are read (references) and written (the result) off the event loop
        path, body = await asyncio.to_thread(self.image_request, args, invocation)
        if self.handler is not None:
            result = await call_handler(self.handler, body, "image_gen.imagegen")
            b64 = base64.b64encode(result).decode() if isinstance(result, bytes) else result
        elif self.backend is not None:
            answer = await self.backend(path, body)
            data = answer.get("data")
            first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
            b64 = first.get("b64_json")
        else:
            raise RespondToModel(NO_ROUTE)
        if not isinstance(b64, str) or not b64:
            raise RespondToModel(NO_IMAGE)
        return await asyncio.to_thread(self._output, b64, invocation)

    def _output(self, b64: str, invocation: ToolInvocation) -> ToolOutput:
        try:
            data = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError):
            data = b""
        if len(data) > MAX_IMAGE_BYTES:
            raise RespondToModel("generated image exceeds the executor file size limit")
        mime = mime_of(data)
        folder = (self.save_root or codex_home()) / "generated_images" / _safe(invocation.turn.thread_id)
        target = folder / f"{_safe(invocation.call_id)}.png"
        if data:
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        # a catalog model takes the original resolution (supports_image_detail_original); others "high"
        detail = "original" if invocation.turn.model_slug in CATALOG_TEXT_AND_IMAGE else "high"
        image: dict[str, Any] = (
            {"type": "input_image", "image_url": f"data:{mime};base64,{b64}", "detail": detail}
            if mime
            else {"type": "input_text", "text": UNPROCESSABLE}
        )
        hint = {"type": "input_text", "text": HINT.format(dir=folder, path=target)}
        result = {"image_url": image.get("image_url"), "output_hint": hint["text"]}
        return ToolOutput(body=[image, hint], code_mode_result=result)


def _safe(name: str) -> str:
    """A path component from a peer-given id: kept when plain, else replaced (never a path escape)."""
    if _SAFE_NAME.fullmatch(name) and name not in (".", ".."):
        return name
    return "call-" + base64.urlsafe_b64encode(name.encode()[:64]).decode().rstrip("=")
