"""Real image bytes for tests: what a model or an agent would decode (Pillow writes them)."""

from __future__ import annotations

import base64
import io

from PIL import Image


def image(fmt: str = "PNG", size: tuple[int, int] = (8, 4), color: str = "steelblue") -> bytes:
    """An image of ``size`` in one ``color``, encoded as ``fmt`` (``PNG``, ``JPEG``, ``GIF``...)."""
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt)
    return out.getvalue()


def image_b64(fmt: str = "PNG", size: tuple[int, int] = (8, 4), color: str = "steelblue") -> str:
    """``image(...)`` as base64 text, as a notebook output holds it."""
    return base64.b64encode(image(fmt, size, color)).decode()
