"""How a batch's objects are drawn (:class:`ObjectLook`): what their colour and shape codes
mean, the outline width, and the renderer's sprites of each (flat masks, or
:class:`SolidSprite` in the solid look), computed once. The transition plan and its drawing
both read it; ``task_arrays`` hands a task's look over with its objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..draw.render import sprite
from ..draw.solids import solid_sprite
from ..task.vocabulary import CLASSIC, OUTLINE_WIDTH

__all__ = ["SolidSprite", "ObjectLook", "CLASSIC_LOOK"]


class SolidSprite(NamedTuple):
    """A solid-look sprite (``solids.solid_sprite``): the (s, s) bool pixels it touches and
    their (s, s, 3) uint8 colours."""

    mask: np.ndarray
    rgb: np.ndarray


@dataclass(frozen=True)
class ObjectLook:
    """How a batch's objects are drawn: what their colour and shape codes mean, and the outline
    (the drawing side; the scorer's ``scoring.looks.Look`` is what a look means for detection).

    Attributes
    ----------
    rgb : tuple of (r, g, b)
        Colour by colour code (``vocabulary.rgb``).
    shapes : tuple of int
        Global shape code (index into ``vocabulary.SHAPE_TABLE``) by shape code
        (``vocabulary.shapes``).
    outline : int
        Outline width in pixels (``Config.lengths.outline``).
    name : str
        The look's name (``vocabulary.LOOKS``): "flat" sprites are masks painted in a fill and
        an outline colour, "solid" ones (:class:`SolidSprite`) carry their own colours.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> look = ObjectLook.of(generate_batch([1], canvas_size=1024, vocabulary="extended"))
    >>> len(look.rgb), look.shapes[-1], look.outline
    (10, 7, 8)
    >>> ObjectLook.of(generate_batch([1])) == CLASSIC_LOOK
    True
    """

    rgb: tuple
    shapes: tuple
    outline: int
    name: str = "flat"

    @classmethod
    def of(cls, batch) -> "ObjectLook":
        """The look of an engine batch (its configuration's vocabulary and outline)."""
        config = batch.config
        return cls(tuple(map(tuple, config.vocabulary.rgb.tolist())),
                   tuple(config.vocabulary.shapes), int(config.lengths.outline), config.look)

    def fill(self, color: int) -> np.ndarray:
        """RGB (uint8) of colour code ``color``."""
        return np.array(self.rgb[int(color)], np.uint8)

    def sprite(self, shape: int, size: int) -> np.ndarray:
        """The renderer's flat sprite of shape code ``shape`` at ``size`` with this outline."""
        return sprite(self.shapes[int(shape)], int(size), self.outline)

    def solid(self, shape: int, size: int, color: int) -> SolidSprite:
        """The renderer's solid sprite of shape code ``shape`` at ``size`` in colour code
        ``color``."""
        return _solid(self.shapes[int(shape)], int(size), self.rgb[int(color)])


#: The classic vocabulary with the 2-px outline of a 256-px canvas.
CLASSIC_LOOK = ObjectLook(tuple(map(tuple, CLASSIC.rgb.tolist())), tuple(CLASSIC.shapes),
                    OUTLINE_WIDTH)


@lru_cache(maxsize=4096)
def _solid(shape: int, size: int, rgb: tuple) -> SolidSprite:
    """The renderer's solid sprite of global shape code ``shape`` in colour ``rgb``."""
    return SolidSprite(*solid_sprite(shape, size, tuple(map(int, rgb))))


@lru_cache(maxsize=4096)
def _sprite_mask(shape: int, size: int, outline: int) -> np.ndarray:
    """The renderer's sprite of global shape code ``shape``, computed once (read-only)."""
    mask = sprite(shape, size, outline)
    mask.flags.writeable = False
    return mask


def label_runs(mask: np.ndarray) -> np.ndarray:
    """(n, 4) int64 rows (row, first column, end column, label): the runs of equal nonzero
    labels along each row of a sprite ``mask``, row by row, left to right.

    Examples
    --------
    >>> label_runs(np.array([[0, 1, 2, 2], [1, 1, 0, 1]], np.uint8)).tolist()
    [[0, 1, 2, 1], [0, 2, 4, 2], [1, 0, 2, 1], [1, 3, 4, 1]]
    """
    rows, width = mask.shape
    starts = np.ones(mask.shape, bool)
    starts[:, 1:] = mask[:, 1:] != mask[:, :-1]
    row, first = np.nonzero(starts)
    end = np.full(len(first), width)
    same_row = row[1:] == row[:-1]
    end[:-1][same_row] = first[1:][same_row]
    label = mask[row, first].astype(np.int64)
    out = np.column_stack([row, first, end, label]).astype(np.int64)
    return out[label != 0]


@lru_cache(maxsize=4096)
def _sprite_runs(shape: int, size: int, outline: int) -> np.ndarray:
    """:func:`label_runs` of :func:`_sprite_mask`, computed once (read-only)."""
    runs = label_runs(_sprite_mask(shape, size, outline))
    runs.flags.writeable = False
    return runs
