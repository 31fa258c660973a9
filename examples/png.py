"""A tiny PNG writer (zlib + struct only), so the examples need nothing beyond NumPy.

``write_png(path, pixels)`` takes an ``(height, width, 3)`` (RGB) or ``(height, width, 4)``
(RGBA) array of ``uint8`` (anything with ``__array__``, e.g. ``wp.array.numpy()``), or an
``(height, width)`` array for grayscale.
"""

from __future__ import annotations

import os
import struct
import zlib

import numpy as np

_COLOR_TYPES = {1: 0, 3: 2, 4: 6}  # channels -> PNG color type (gray, RGB, RGBA)


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def encode_png(pixels: object) -> bytes:
    """The bytes of a PNG file holding ``pixels`` (8 bits per channel, no interlacing)."""
    img = np.asarray(pixels)
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3 or img.shape[2] not in _COLOR_TYPES:
        raise ValueError(f"expected (h, w), (h, w, 3) or (h, w, 4) pixels, got shape {img.shape}")
    if img.dtype != np.uint8:
        raise ValueError(f"expected uint8 pixels, got {img.dtype}")
    height, width, channels = img.shape
    # every scanline starts with filter type 0 (None)
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 1:] = np.ascontiguousarray(img).reshape(height, width * channels)
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
            _chunk(b"IEND", b""),
        ]
    )


def write_png(path: str, pixels: object) -> str:
    """Write ``pixels`` to ``path`` as PNG (creating the folder) and return the path."""
    data = encode_png(pixels)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path
