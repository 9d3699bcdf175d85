"""Contact sheets of first/final frame pairs with their prompts, for a person to look at."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ...cli_common import not_a_folder
from ...draw.png import encode_png
from ...runtime.atomic import atomic_write_bytes
from ...runtime.errors import ParameterError
from ...task.vocabulary import LEVELS

__all__ = ["MAX_SHEET_PIXELS", "MAX_COUNT", "MAX_COLUMNS", "SheetLayout", "check_sheet",
           "check_preview_options", "check_sheet_path", "contact_sheet", "preview_sheet",
           "save_sheet"]

#: Largest contact sheet: 192 Mpixels (576 MiB as RGB): 1024 tasks at 256x256 in any number of
#: columns, 16 at 1024x1024, 4 at 2048x2048, 1 at 4096x4096. The sheet is held once, tasks are
#: rendered a chunk at a time, so ``preview`` stays within about 1.5 GiB of memory.
MAX_SHEET_PIXELS = 192 * 2**20
#: Most tasks and pairs per row on one sheet.
MAX_COUNT, MAX_COLUMNS = 1024, 64

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


class SheetLayout:
    """Where each labelled first | final pair goes on a sheet of ``count`` tasks.

    Examples
    --------
    >>> layout = SheetLayout(count=10, columns=4, canvas_size=(256, 256))
    >>> layout.rows, layout.size[0] == 4 * (2 * 256 + GAP + 2) + 5 * PAD
    (3, True)
    """

    def __init__(self, count: int, columns: int, canvas_size, text_lines: int = 3):
        self.count, self.text_lines = count, text_lines
        self.columns = max(1, min(columns, count))
        self.canvas_size = w, h = tuple(canvas_size)
        self.line_h = int(FONT_SIZE * 1.3)
        self.cell = (2 * w + GAP + 2, h + 2 + (text_lines + 1) * self.line_h + GAP)
        self.rows = -(-count // self.columns)
        self.size = (self.columns * self.cell[0] + (self.columns + 1) * PAD,
                     self.rows * self.cell[1] + (self.rows + 1) * PAD)

    @property
    def pixels(self) -> int:
        """Pixels of the whole sheet."""
        return self.size[0] * self.size[1]

    def origin(self, i: int) -> tuple[int, int]:
        """Top-left corner of task ``i``'s cell."""
        return (PAD + (i % self.columns) * (self.cell[0] + PAD),
                PAD + (i // self.columns) * (self.cell[1] + PAD))


def check_sheet(layout: SheetLayout) -> None:
    """Raise ParameterError if the sheet would exceed ``MAX_SHEET_PIXELS``, naming the options
    that set its size."""
    if layout.pixels > MAX_SHEET_PIXELS:
        (w, h), (sw, sh) = layout.canvas_size, layout.size
        raise ParameterError(
            f"--count {layout.count} --columns {layout.columns} --canvas-size {w}x{h} make a "
            f"{sw}x{sh} contact sheet ({layout.pixels / 2**20:.0f} Mpixels); a sheet is "
            f"limited to {MAX_SHEET_PIXELS // 2**20} Mpixels: lower --count or --canvas-size")


def check_preview_options(level: str, count: int, seed: int, columns: int,
                          canvas_size, **knobs) -> SheetLayout:
    """Check the ``preview`` options (named as on the command line); return the layout.

    ``knobs`` are ``RunConfig``'s engine options (``vocabulary``, ``num_objects``, ...).

    Examples
    --------
    >>> check_preview_options("L9", 16, 0, 4, (256, 256))
    Traceback (most recent call last):
    ...
    objsub_fast.runtime.errors.ParameterError: --level must be one of L1, L2, L3, L4, got 'L9'
    """
    from .run_config import RunConfig

    checks = (
        (level in LEVELS, f"--level must be one of {', '.join(LEVELS)}, got {level!r}"),
        (isinstance(count, int) and 1 <= count <= MAX_COUNT,
         f"--count must be an integer in [1, {MAX_COUNT}] for a preview, got {count!r}"),
        (isinstance(columns, int) and 1 <= columns <= MAX_COLUMNS,
         f"--columns must be an integer in [1, {MAX_COLUMNS}], got {columns!r}"),
    )
    for ok, message in checks:
        if not ok:
            raise ParameterError(message)
    config = RunConfig(count=count, levels=(level,), seed=seed, canvas_size=canvas_size,
                       **knobs).validate()
    layout = SheetLayout(count, columns, config.canvas_size)
    check_sheet(layout)
    return layout


def _new_sheet(layout: SheetLayout) -> np.ndarray:
    return np.full((layout.size[1], layout.size[0], 3), BACKGROUND, dtype=np.uint8)


def _draw_batch(sheet: np.ndarray, layout: SheetLayout, batch, first: int) -> None:
    """Draw the tasks of ``batch`` as tasks ``first, first + 1, ...`` of the sheet (each in a
    cell-sized Pillow image copied into the array, so the sheet is held once, as RGB bytes)."""
    font = _font()
    (w, h), (cell_w, cell_h) = layout.canvas_size, layout.cell
    for i in range(len(batch)):
        cell = Image.new("RGB", (cell_w, cell_h), BACKGROUND)
        draw = ImageDraw.Draw(cell)
        task = batch.task(i)
        head = (f"{task['level']} {task['object_subtraction_data']['rule']['rule_type']}  "
                f"seed {task['seed']}   first | final")
        draw.text((0, 0), head, fill=TEXT, font=font)
        top = layout.line_h
        for k, frames in enumerate((batch.first_frames, batch.final_frames)):
            left = k * (w + GAP)
            draw.rectangle((left, top, left + w + 1, top + h + 1), outline=FRAME_BORDER)
            cell.paste(Image.fromarray(frames[i]), (left + 1, top + 1))
        for j, line in enumerate(_wrap(batch.prompts[i], font, cell_w)[:layout.text_lines]):
            draw.text((0, top + h + 4 + j * layout.line_h), line, fill=TEXT, font=font)
        x0, y0 = layout.origin(first + i)
        sheet[y0:y0 + cell_h, x0:x0 + cell_w] = np.asarray(cell)


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
        The sheet as RGB pixels (at most ``MAX_SHEET_PIXELS``; ParameterError beyond).

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> sheet = contact_sheet(generate_batch([1, 2, 3], level="L1"), columns=2)
    >>> sheet.dtype, sheet.shape[1] > 2 * 2 * 256, sheet.shape[0] > 2 * 256
    (dtype('uint8'), True, True)
    """
    if len(batch) == 0:
        raise ValueError("contact_sheet needs at least one task")
    layout = SheetLayout(len(batch), columns, batch.canvas_size, text_lines)
    check_sheet(layout)
    sheet = _new_sheet(layout)
    _draw_batch(sheet, layout, batch, 0)
    return sheet


def preview_sheet(level: str = "L1", count: int = 16, seed: int = 0, columns: int = 4,
                  canvas_size=(256, 256), **knobs) -> np.ndarray:
    """The contact sheet ``objsub-fast preview`` writes: tasks ``0 .. count-1`` of a run with
    base ``seed`` at one ``level``, rendered a chunk at a time (``dataset.content.plan.
    auto_chunk_size``), so memory is the sheet (at most ``MAX_SHEET_PIXELS``) plus one chunk.
    ``knobs`` are ``RunConfig``'s engine options (``vocabulary``, ``num_objects``, ...).

    Examples
    --------
    >>> preview_sheet("L2", count=2, columns=2).shape[1] > 4 * 256
    True
    >>> preview_sheet("L2", 1, 0, 1, 128).shape[1] < 2 * 256  # a square canvas as one int
    True
    """
    from ..content.plan import auto_chunk_size
    from ...engine import generate_batch
    from ..content.shards import task_seeds

    from .run_config import RunConfig

    layout = check_preview_options(level, count, seed, columns, canvas_size, **knobs)
    options = RunConfig(count=count, levels=(level,), seed=seed, canvas_size=canvas_size,
                        **knobs).engine_options()
    sheet = _new_sheet(layout)
    step = auto_chunk_size(layout.canvas_size)
    for start in range(0, count, step):
        batch = generate_batch(task_seeds(seed, start, min(start + step, count)), level=level,
                               canvas_size=layout.canvas_size, **options)
        _draw_batch(sheet, layout, batch, start)
        del batch
    return sheet


def check_sheet_path(path) -> Path:
    """``path`` as the file a sheet goes to: ParameterError unless it names a ``.png`` file
    (a sheet is PNG bytes) that is not a folder and whose existing parents are folders;
    missing parent folders are fine.

    Examples
    --------
    >>> check_sheet_path("sheet.jpg")
    Traceback (most recent call last):
    ...
    objsub_fast.runtime.errors.ParameterError: preview writes a PNG file: OUT must end in .png, got 'sheet.jpg'
    """
    from ...storage.url import local_path

    local_path(str(path), "OUT")  # a mistyped URL is refused before the sheet is rendered
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"preview OUT {str(path)!r} is a folder; give a file name such as "
                             f"{str(path / 'preview.png')!r}")
    if path.suffix.lower() != ".png":
        raise ParameterError(f"preview writes a PNG file: OUT must end in .png, got {str(path)!r}")
    blocker = not_a_folder(path)
    if blocker is not None:
        raise ParameterError(f"preview OUT {str(path)!r} cannot be written: Not a directory "
                             f"({blocker} is a file)")
    return path


def save_sheet(sheet: np.ndarray, path) -> Path:
    """Write a contact sheet (H, W, 3) uint8 as a PNG file, atomically, creating missing
    parent folders; return the path (``check_sheet_path`` says which paths are refused)."""
    path = check_sheet_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, encode_png(sheet))
    return path
