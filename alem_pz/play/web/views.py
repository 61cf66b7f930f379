"""What the page receives: seat views as PNG frames, and alem-play's key table in browser terms.

**Frames, not a sprite sheet.** The server sends each seat's pixel observation (the picture
``alem-play`` shows, drawn by ``alem_core.pixels``) as a PNG per step. Drawing client-side from a
sprite sheet would send less per step, but the picture is more than tiles: light, night tint and
grain, sleep dimming, coordination frames, handover clocks, elite counts and message badges are
composited in ``alem_core.pixels.view``; a JavaScript copy of that compositing would be a second
renderer to keep equal to the first. Measured in docs/play-in-browser.md (``python -m
bench.web_frames``): one step's frames cost a few milliseconds to encode and a few tens of KB,
which loopback and a LAN carry easily.

PNGs are written here with ``zlib`` (no Pillow needed by the ``web`` extra): filter type 0 rows,
which compress the flat tiles of the textures well.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from alem_core.constants import action_label
from alem_pz.play.keys import key_table

PNG_LEVEL = 6
"""zlib level of the frames (docs/play-in-browser.md measures levels 1, 6 and 9)."""

_SPECIAL_CODES = {
    "space": "Space", "tab": "Tab", "backspace": "Backspace", ".": "Period", ",": "Comma",
    "[": "BracketLeft", "]": "BracketRight", "-": "Minus", "=": "Equal", ";": "Semicolon",
    "`": "Backquote",
}  # fmt: skip
"""pygame key names (``alem_pz.play.keys``) -> ``KeyboardEvent.code`` (letters, digits and F-keys
follow a rule): codes name physical keys, so Shift+1 is still Digit1."""


def to_uint8(images: np.ndarray) -> np.ndarray:
    """float images in [0, 1] -> uint8, rounded as ``rendering.frame_function`` rounds."""
    return (np.clip(images, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


def png_bytes(image: np.ndarray, level: int = PNG_LEVEL) -> bytes:
    """(H, W, 3) uint8 -> PNG file bytes (8-bit RGB, no filter, zlib ``level``)."""
    image = np.ascontiguousarray(image, np.uint8)
    h, w, channels = image.shape
    if channels != 3:
        raise ValueError(f"png_bytes takes (H, W, 3) uint8 images, got shape {image.shape}")
    rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * 3)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows.tobytes(), level)),
            chunk(b"IEND", b""),
        ]
    )


def key_code(name: str) -> str:
    """``KeyboardEvent.code`` of a pygame key name from ``alem_pz.play.keys``."""
    if name in _SPECIAL_CODES:
        return _SPECIAL_CODES[name]
    if len(name) == 1 and name.isalpha():
        return f"Key{name.upper()}"
    if len(name) == 1 and name.isdigit():
        return f"Digit{name}"
    if name.startswith("f") and name[1:].isdigit():
        return name.upper()
    raise ValueError(f"no browser key code for pygame key {name!r}")


def browser_keys(player_count: int, num_comm_channels: int) -> list[dict[str, object]]:
    """alem-play's key table (``alem_pz.play.keys.key_table``) as the page reads it: one entry per
    binding with the key code, sorted modifiers, a label and the action's id and name."""
    return [
        {
            "code": key_code(key),
            "mods": sorted(mods),
            "label": "+".join([*sorted(mods), key]),
            "action": action,
            "name": action_label(action, player_count),
        }
        for (key, mods), action in key_table(player_count, num_comm_channels).items()
    ]


__all__ = ["PNG_LEVEL", "browser_keys", "key_code", "png_bytes", "to_uint8"]
