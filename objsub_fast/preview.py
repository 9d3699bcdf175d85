"""Contact sheets of first/final frame pairs with their prompts, for a person to look at."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .atomic import atomic_write_bytes
from .png import encode_png

__all__ = ["contact_sheet", "save_sheet"]

PAD = 8
GAP = 4
BACKGROUND = (236, 236, 236)
FRAME_BORDER = (150, 150, 150)
TEXT = (20, 20, 20)
FONT_SIZE = 14


def _font(size: int = FONT_SIZE):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the fixed bitmap font
        return ImageFont.load_default()


def _wrap(text: str, font, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and font.getlength(trial) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + ([line] if line else [])


def contact_sheet(batch, columns: int = 4, text_lines: int = 3) -> np.ndarray:
    """Lay out every task of an engine batch as a labelled first | final pair.

    Parameters
    ----------
    batch : engine batch with frames (``generate_batch(..., render=True)``)
    columns : int
        Pairs per row.
    text_lines : int
        Lines reserved under each pair for the level, rule kind and wrapped prompt.

    Returns
    -------
    ndarray of uint8, shape (H, W, 3)
        The sheet as RGB pixels.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> sheet = contact_sheet(generate_batch([1, 2, 3], level="L1"), columns=2)
    >>> sheet.dtype, sheet.shape[1] > 2 * 2 * 256, sheet.shape[0] > 2 * 256
    (dtype('uint8'), True, True)
    """
    n = len(batch)
    if n == 0:
        raise ValueError("contact_sheet needs at least one task")
    columns = max(1, min(columns, n))
    w, h = batch.canvas_size
    font = _font()
    line_h = int(FONT_SIZE * 1.3)
    cell_w, cell_h = 2 * w + GAP + 2, h + 2 + (text_lines + 1) * line_h + GAP
    rows = -(-n // columns)
    sheet = Image.new("RGB", (columns * cell_w + (columns + 1) * PAD,
                              rows * cell_h + (rows + 1) * PAD), BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    for i in range(n):
        x0 = PAD + (i % columns) * (cell_w + PAD)
        y0 = PAD + (i // columns) * (cell_h + PAD)
        task = batch.task(i)
        head = (f"{task['level']} {task['object_subtraction_data']['rule']['rule_type']}  "
                f"seed {task['seed']}   first | final")
        draw.text((x0, y0), head, fill=TEXT, font=font)
        top = y0 + line_h
        for k, frames in enumerate((batch.first_frames, batch.final_frames)):
            left = x0 + k * (w + GAP)
            draw.rectangle((left, top, left + w + 1, top + h + 1), outline=FRAME_BORDER)
            sheet.paste(Image.fromarray(frames[i]), (left + 1, top + 1))
        for j, line in enumerate(_wrap(batch.prompts[i], font, cell_w)[:text_lines]):
            draw.text((x0, top + h + 4 + j * line_h), line, fill=TEXT, font=font)
    return np.asarray(sheet)


def save_sheet(sheet: np.ndarray, path) -> Path:
    """Write a contact sheet (H, W, 3) uint8 as a PNG file, atomically; return the path."""
    path = Path(path)
    atomic_write_bytes(path, encode_png(sheet))
    return path
