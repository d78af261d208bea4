"""The check an image passes before it goes to an agent: its bytes, not the name it came under.

A notebook output's ``image/png`` key, or a value's ``_repr_png_``, says nothing about what the
bytes are: a front end or a library may store text that is not base64, random bytes, or a GIF
under it. A model given such a ``data:image/png`` URL rejects the whole request (or sees noise),
so each image is checked here first: base64 that decodes, a size within the bound, a signature
that matches the type it is sent as, and a structure a decoder reads to its end (every PNG chunk
with its CRC, the pixel data inflated to the size its header announces; a JPEG's segments to its
end marker). Only the standard library is used, so the check runs wherever the extension does.
An image that fails is left out, and ``ImageRefused`` says why in one phrase that the person and
the agent both read.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from typing import Any

MAX_IMAGE_BYTES = 2_000_000
"""An image larger than this (decoded) is left out."""
MAX_PIXELS = 40_000_000
"""More pixels than this (a 6,300 x 6,300 image) is left out before its pixel data is inflated,
so a few compressed bytes that announce billions of pixels cost nothing."""

SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)
_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "image/bmp": "BMP",
    "image/tiff": "TIFF",
}
_CHUNK = 1 << 20  # inflate in 1 MiB pieces: the check never holds the pixels


class ImageRefused(ValueError):
    """An image left out: ``str(err)`` is why (``its bytes are GIF, not PNG``)."""


def sniff(data: bytes) -> str | None:
    """The MIME type the bytes' signature names (None: no image format known here)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for magic, mime in SIGNATURES if data.startswith(magic)), None)


def from_base64(text: Any, mime: str) -> bytes:
    """The checked bytes of base64 ``text`` (whitespace allowed, as nbformat stores it) sent as
    ``mime``; ``ImageRefused`` says why not. The size is judged before anything is decoded."""
    if not isinstance(text, str):
        raise ImageRefused(f"its data is {type(text).__name__}, not base64 text")
    compact = "".join(text.split())
    size = len(compact) * 3 // 4 - (len(compact) - len(compact.rstrip("=")))
    if size > MAX_IMAGE_BYTES:
        raise ImageRefused(too_large(size))
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise ImageRefused("its data is not valid base64") from None
    check(data, mime)
    return data


def check(data: bytes, mime: str) -> None:
    """Raise ``ImageRefused`` unless ``data`` is a whole, decodable image of type ``mime``."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRefused(too_large(len(data)))
    if not data:
        raise ImageRefused("it holds no bytes")
    found = sniff(data)
    wanted = _NAMES.get(mime, mime)
    if found is None:
        raise ImageRefused(f"its bytes are no image format (not {wanted})")
    if found != mime:
        raise ImageRefused(f"its bytes are {_NAMES.get(found, found)}, not {wanted}")
    if mime == "image/png":
        _png(data)
    elif mime == "image/jpeg":
        _jpeg(data)
    else:
        raise ImageRefused(f"{wanted} images are not sent (PNG and JPEG are)")


def too_large(size: int) -> str:
    """Why an image of ``size`` bytes is left out."""
    return f"it is {size:,} bytes, more than the {MAX_IMAGE_BYTES:,} an image may be"


def data_url(url: str) -> tuple[str, bytes]:
    """``(mime, bytes)`` of a checked ``data:<mime>;base64,...`` URL; ``ImageRefused`` otherwise."""
    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise ImageRefused("it is not a base64 data: URL")
    mime = head[5:-7]
    return mime, from_base64(payload, mime)


# -- PNG -------------------------------------------------------------------------------
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


def _png(data: bytes) -> None:
    at, idat, header, palette = 8, [], None, False
    while True:
        if at + 12 > len(data):
            raise ImageRefused("its PNG data is cut short (no IEND chunk)")
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        end = at + 12 + length
        if end > len(data):
            raise ImageRefused(f"its PNG data is cut short (in a {kind!r} chunk)")
        body = data[at + 8 : end - 4]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[end - 4 : end])[0]:
            raise ImageRefused(f"its PNG data is corrupt (a {kind!r} chunk fails its CRC)")
        if header is None and kind != b"IHDR":
            raise ImageRefused("its PNG data is corrupt (it does not start with IHDR)")
        if kind == b"IHDR":
            header = _png_header(body)
        elif kind == b"PLTE":
            palette = True
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        at = end
    assert header is not None
    width, height, depth, colour, interlaced = header
    if colour == 3 and not palette:
        raise ImageRefused("its PNG data is corrupt (a palette image with no PLTE chunk)")
    row_bits = _CHANNELS[colour] * depth
    if interlaced:
        passes = [(_pass_size(width, x0, dx), _pass_size(height, y0, dy)) for x0, y0, dx, dy in _ADAM7]
        expected = sum(h * (1 + (w * row_bits + 7) // 8) for w, h in passes if w and h)
    else:
        expected = height * (1 + (width * row_bits + 7) // 8)
    _inflate(b"".join(idat), expected)


def _png_header(body: bytes) -> tuple[int, int, int, int, bool]:
    if len(body) != 13:
        raise ImageRefused("its PNG data is corrupt (an IHDR chunk of the wrong length)")
    width, height, depth, colour, method, filtering, interlace = struct.unpack(">IIBBBBB", body)
    if not (0 < width < 2**31 and 0 < height < 2**31) or depth not in _DEPTHS.get(colour, ()):
        raise ImageRefused("its PNG data is corrupt (an impossible IHDR)")
    if method or filtering or interlace > 1:
        raise ImageRefused("its PNG data is corrupt (an unknown compression, filter or interlace method)")
    if width * height > MAX_PIXELS:
        raise ImageRefused(f"it has {width:,} x {height:,} pixels, more than the {MAX_PIXELS:,} an image may have")
    return width, height, depth, colour, bool(interlace)


def _pass_size(size: int, start: int, step: int) -> int:
    return max(0, (size - start + step - 1) // step)


def _inflate(stream: bytes, expected: int) -> None:
    """Inflate the pixel data in pieces, discarding them: it must hold exactly ``expected`` bytes."""
    inflater = zlib.decompressobj()
    got = 0
    try:
        piece = inflater.decompress(stream, _CHUNK)
        while piece:
            got += len(piece)
            if got > expected:
                raise ImageRefused("its PNG data is corrupt (more pixel data than its header announces)")
            piece = inflater.decompress(inflater.unconsumed_tail, _CHUNK)
    except zlib.error:
        raise ImageRefused("its PNG data is corrupt (the pixel data does not inflate)") from None
    if not inflater.eof or got != expected:
        raise ImageRefused("its PNG data is cut short (less pixel data than its header announces)")


# -- JPEG ------------------------------------------------------------------------------
_SOF = {*range(0xC0, 0xD0)} - {0xC4, 0xC8, 0xCC}  # start of frame; C4 DHT, C8 JPG, CC DAC are not
_STANDALONE = {0x01, *range(0xD0, 0xD8)}  # TEM and RSTn carry no length


def _jpeg(data: bytes) -> None:
    at, frame, scan = 2, False, False
    while True:
        if at + 2 > len(data):
            raise ImageRefused("its JPEG data is cut short (no end-of-image marker)")
        if data[at] != 0xFF:
            raise ImageRefused("its JPEG data is corrupt (a segment does not start with a marker)")
        while at + 1 < len(data) and data[at + 1] == 0xFF:  # fill bytes
            at += 1
        marker = data[at + 1] if at + 1 < len(data) else -1
        at += 2
        if marker == 0xD9:
            break
        if marker in _STANDALONE:
            continue
        if marker < 0 or at + 2 > len(data):
            raise ImageRefused("its JPEG data is cut short (in a segment header)")
        length = struct.unpack(">H", data[at : at + 2])[0]
        if length < 2 or at + length > len(data):
            raise ImageRefused("its JPEG data is cut short (in a segment)")
        if marker in _SOF:
            frame = True
            _jpeg_frame(data[at + 2 : at + length])
        at += length
        if marker == 0xDA:
            if not frame:
                raise ImageRefused("its JPEG data is corrupt (a scan before any frame header)")
            scan = True
            at = _scan_end(data, at)
    if not scan:
        raise ImageRefused("its JPEG data holds no image scan")


def _jpeg_frame(body: bytes) -> None:
    if len(body) < 6:
        raise ImageRefused("its JPEG data is corrupt (a frame header too short)")
    _precision, height, width, components = struct.unpack(">BHHB", body[:6])
    if not (width and height and components) or len(body) < 6 + 3 * components:
        raise ImageRefused("its JPEG data is corrupt (an impossible frame header)")
    if width * height > MAX_PIXELS:
        raise ImageRefused(f"it has {width:,} x {height:,} pixels, more than the {MAX_PIXELS:,} an image may have")


def _scan_end(data: bytes, at: int) -> int:
    """Where the entropy-coded data after a scan header ends: the next marker that is neither a
    stuffed ``FF 00`` nor a restart marker."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            raise ImageRefused("its JPEG data is cut short (no end-of-image marker)")
        following = data[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            at += 1 if following == 0xFF else 2
            continue
        return at
