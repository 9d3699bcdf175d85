"""``generate_batch``: seeds in, a structure-of-arrays batch of tasks (and frames) out."""
from __future__ import annotations

import numpy as np

from .config import check_levels, check_out, check_seeds, make_config
from .errors import ParameterError
from .records import prompt_and_rule, task_record
from .render import draw_frames, sprite_areas
from .scenes import generate_scenes
from .vocabulary import LEVELS


class Batch:
    """Tasks generated from a sequence of seeds, as arrays.

    Attributes
    ----------
    seeds : (N,) int64
    level_codes : (N,) int8, index into ``LEVELS``; ``levels`` gives the names.
    kind : (N,) int16, index into ``vocabulary.KINDS``.
    num_objects : (N,) int16
    x, y : (N, M) float64 exact centres; left, top : (N, M) int32 bounding-square corner.
    size : (N, M) int16; color, shape : (N, M) int8 codes; removed : (N, M) bool;
    area : (N, M) int32 drawn pixels. Entries at or beyond ``num_objects[i]`` are padding.
    prompts : list of str
    first_frames, final_frames : (N, H, W, 3) uint8, or None when not rendered.
    instance_maps : (N, H, W) uint8 (0 background, k+1 object k), or None.
    canvas_size : (W, H)
    """

    def __init__(self, seeds, level_codes, config, scenes, frames):
        self.seeds = seeds
        self.level_codes = level_codes
        self.config = config
        self.canvas_size = (config.width, config.height)
        for name, values in scenes.items():
            setattr(self, name, values)
        half = self.size / 2.0
        self.x = self.left + half
        self.y = self.top + half
        valid = np.arange(self.size.shape[1]) < self.num_objects[:, None]
        s_lo = config.size_range[0]
        areas = sprite_areas(*config.size_range)
        self.area = np.where(valid, areas[self.shape, np.clip(self.size - s_lo, 0, None)], 0)
        self.prompts, self.rule_params = self._prompts()
        self.first_frames, self.final_frames, self.instance_maps = frames

    def _prompts(self):
        prompts, params = [], []
        colors, shapes, removed = self.color.tolist(), self.shape.tolist(), self.removed.tolist()
        for i, (kind, variant, n) in enumerate(zip(self.kind.tolist(), self.variant.tolist(),
                                                  self.num_objects.tolist())):
            rem = [k for k in range(n) if removed[i][k]]
            prompt, param = prompt_and_rule(kind, variant, colors[i][:n], shapes[i][:n], rem,
                                            self.listed[i].tolist())
            prompts.append(prompt)
            params.append(param)
        return prompts, params

    def __len__(self) -> int:
        return len(self.seeds)

    @property
    def levels(self) -> list:
        return [LEVELS[c] for c in self.level_codes.tolist()]

    def task(self, i: int) -> dict:
        """Task record of task ``i`` (DESIGN.md §Task record), a plain JSON-serialisable dict."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"task index {i} out of range for a batch of {len(self)}")
        return task_record(self, i % len(self))

    def tasks(self) -> list:
        """Task records of every task."""
        return [self.task(i) for i in range(len(self))]


def generate_batch(seeds, level="L1", canvas_size=256, render=True, *, masks=False,
                   num_objects=None, object_size=(20, 40), kind_weights=None, out=None):
    """Generate Object Subtraction tasks, one per seed.

    Parameters
    ----------
    seeds : sequence of int
        Integers in [0, 2**63-1]. Task i is a pure function of (seeds[i], its level and the
        configuration): the same in any batch, order or process.
    level : str or sequence of str
        "L1".."L4", or one level per seed.
    canvas_size : int or (int, int)
        Canvas (width, height) in pixels, 16..8192.
    render : bool
        Draw first and final frames (default True). False gives scenes and rules only.
    masks : bool
        Also draw instance maps (0 background, k+1 object k, outline included).
    num_objects : (int, int), optional
        Object count range for every level; default 5-8 (L4: 6-8).
    object_size : (int, int)
        Object size range in pixels (bounding-square side), default (20, 40).
    kind_weights : dict, optional
        ``{level: {kind: weight}}`` (or ``{kind: weight}`` for one level); default uniform.
    out : tuple of ndarray, optional
        ``(first, final)`` or, with ``masks``, ``(first, final, instance)``: C-contiguous uint8
        arrays of shape (N, H, W, 3) / (N, H, W) to draw into instead of new ones. Reusing them
        across calls saves the page faults of fresh memory; the batch's frames are these arrays.

    Returns
    -------
    Batch

    Raises
    ------
    ValueError
        For any bad parameter, naming it and the allowed range.
    """
    seeds = check_seeds(seeds)
    level_codes = check_levels(level, len(seeds))
    config = make_config(level_codes, canvas_size, num_objects, object_size, kind_weights)
    if out is not None:
        if not render:
            raise ParameterError("out needs render=True (there are no frames to draw into)")
        out = check_out(out, len(seeds), config.width, config.height, masks)
    scenes = generate_scenes(seeds, level_codes, config)
    frames = draw_frames(scenes, config, masks, out) if render else (None, None, None)
    return Batch(seeds, level_codes, config, scenes, frames)

