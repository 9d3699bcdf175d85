"""``generate_batch``: seeds in, a structure-of-arrays batch of tasks (and frames) out."""
from __future__ import annotations

import numpy as np

from .draw.render import batch_store, draw_frames
from .runtime.errors import ParameterError
from .task.config import check_levels, check_out, check_seeds, check_vocabulary, make_config
from .task.records import prompt_and_rule, task_record, task_records
from .task.scenes import generate_scenes
from .task.vocabulary import LEVELS

__all__ = ["Batch", "generate_batch"]


class Batch:
    """Tasks generated from a sequence of seeds, as arrays (N tasks, at most M objects each).

    Entries of an (N, M) array at or beyond ``num_objects[i]`` are padding. Colour and shape
    codes index ``config.vocabulary``.

    Attributes
    ----------
    seeds : (N,) int64
        The seed of each task.
    level_codes : (N,) int8
        Index into ``LEVELS``; ``levels`` gives the names.
    config : objsub_fast.task.config.Config
        The checked configuration every task was made with.
    canvas_size : (int, int)
        (W, H) in pixels.
    kind : (N,) int16
        The rule kind, an index into ``vocabulary.KINDS``.
    variant : (N,) int16
        The rule's own draw for its kind (the attribute value, count, region or ...) that the
        prompt and ``rule_params`` name.
    num_objects : (N,) int16
    left, top : (N, M) int32
        Each object's bounding-square corner, in pixels.
    size : (N, M) int16
        Each object's bounding-square side, in pixels.
    color, shape : (N, M) int8
        Codes into ``config.vocabulary``.
    removed : (N, M) bool
        The objects the rule removes.
    listed : (N, 3) int8
        An L2 rule's listed (colour, shape) pairs, as ``color * len(shapes) + shape``; -1 padded.
    wording : (N,) int8
        The index into ``vocabulary.WORDINGS`` of each prompt (0: original).
    x, y : (N, M) float64
        Exact object centres.
    area : (N, M) int32
        Drawn pixels of each object.
    prompts : list of str
    rule_params : list of dict
        Each task's rule in words (``rule_params`` of its task record).
    first_frames, final_frames : (N, H, W, 3) uint8, or None when not rendered.
    instance_maps : (N, H, W) uint8 (0 background, k+1 object k), or None.
    """

    #: The arrays of ``task.scenes.generate_scenes`` a batch holds, each as its own attribute.
    SCENE_FIELDS = ("kind", "variant", "num_objects", "left", "top", "size", "color", "shape",
                    "removed", "listed", "wording")

    seeds: np.ndarray
    level_codes: np.ndarray
    config: object
    canvas_size: tuple
    kind: np.ndarray
    variant: np.ndarray
    num_objects: np.ndarray
    left: np.ndarray
    top: np.ndarray
    size: np.ndarray
    color: np.ndarray
    shape: np.ndarray
    removed: np.ndarray
    listed: np.ndarray
    wording: np.ndarray
    x: np.ndarray
    y: np.ndarray
    area: np.ndarray
    prompts: list
    rule_params: list
    first_frames: np.ndarray | None
    final_frames: np.ndarray | None
    instance_maps: np.ndarray | None

    def __init__(self, seeds, level_codes, config, scenes, frames):
        self.seeds = seeds
        self.level_codes = level_codes
        self.config = config
        self.canvas_size = (config.width, config.height)
        if set(scenes) != set(self.SCENE_FIELDS):
            raise ValueError(f"scene arrays {sorted(scenes)}; a Batch holds {self.SCENE_FIELDS}")
        (self.kind, self.variant, self.num_objects, self.left, self.top, self.size, self.color,
         self.shape, self.removed, self.listed, self.wording) = (
            scenes[name] for name in self.SCENE_FIELDS)
        half = self.size / 2.0
        self.x = self.left + half
        self.y = self.top + half
        self.area = batch_store(config).object_areas(self.shape, self.size, self.num_objects)
        self.prompts, self.rule_params = self._prompts()
        self.first_frames, self.final_frames, self.instance_maps = frames

    def _prompts(self):
        prompts, params = [], []
        colors, shapes, removed = self.color.tolist(), self.shape.tolist(), self.removed.tolist()
        for i, (kind, variant, n, wording) in enumerate(zip(
                self.kind.tolist(), self.variant.tolist(), self.num_objects.tolist(),
                self.wording.tolist())):
            rem = [k for k in range(n) if removed[i][k]]
            prompt, param = prompt_and_rule(kind, variant, colors[i][:n], shapes[i][:n], rem,
                                            self.listed[i].tolist(), self.config.vocabulary,
                                            wording)
            prompts.append(prompt)
            params.append(param)
        return prompts, params

    def __len__(self) -> int:
        return len(self.seeds)

    @property
    def levels(self) -> list:
        return [LEVELS[c] for c in self.level_codes.tolist()]

    def task(self, i: int) -> dict:
        """Task record of task ``i`` (docs/design.md, "Task record"), a plain JSON-serialisable dict."""
        if not -len(self) <= i < len(self):
            raise IndexError(f"task index {i} out of range for a batch of {len(self)}")
        return task_record(self, i % len(self))

    def tasks(self) -> list:
        """Task records of every task."""
        return task_records(self)


def generate_batch(seeds, level="L1", canvas_size=256, render=True, *, masks=False,
                   num_objects=None, object_size=None, kind_weights=None, out=None,
                   vocabulary="classic", colors=None, shapes=None, shape_names=None,
                   prompt_variants=1, look="flat"):
    """Generate Object Subtraction tasks, one per seed.

    Parameters
    ----------
    seeds : sequence of int
        Integers in [0, 2**63-1]. Task i is a pure function of (seeds[i], its level and the
        configuration): the same in any batch, order or process.
    level : str or sequence of str
        "L1".."L4", or one level per seed.
    canvas_size : int or (int, int)
        Canvas (width, height) in pixels, each side in [64, 8192] (`check_canvas`). The scene is
        decided in 256 units (the canvas scaled so that its shorter side is 256, with every
        length of the scene model at its 256 px value) and then scaled by min(W, H) / 256, so a
        seed gives the same objects, rule, prompt and removed set at every size
        (``objsub_fast.task.units``).
    render : bool
        Draw first and final frames (default True). False gives scenes and rules only.
    masks : bool
        Also draw instance maps (0 background, k+1 object k, outline included).
    num_objects : (int, int), optional
        Object count range for every level; default 5-8 (L4: 6-8).
    object_size : (int, int), optional
        Object size range in pixels (bounding-square side); default (20, 40) scaled with the
        canvas. The scene draws the whole 256-unit sizes whose pixel sizes lie in it.
    kind_weights : dict, optional
        ``{level: {kind: weight}}`` (or ``{kind: weight}`` for one level); default uniform.
    out : tuple of ndarray, optional
        ``(first, final)`` or, with ``masks``, ``(first, final, instance)``: C-contiguous uint8
        arrays of shape (N, H, W, 3) / (N, H, W) to draw into instead of new ones. Reusing them
        across calls saves the page faults of fresh memory; the batch's frames are these arrays.
    vocabulary : {"classic", "extended"} or Vocabulary
        The colours and shapes to draw from (classic: the original six colours and four
        shapes; extended: ten colours and eight shapes).
    colors, shapes : sequence of str or comma-separated str, optional
        Override the vocabulary's colours (names of ``vocabulary.COLOR_TABLE``) or shapes
        (solid or flat names of ``vocabulary.SHAPE_TABLE``), in code order.
    shape_names : {"solid", "flat"}, optional
        Name shapes "cube, sphere, pyramid, cone, ..." (solid, the default) or "square,
        circle, triangle, trapezoid, ..." (flat), in prompts and records alike.
    prompt_variants : int
        Draw each prompt's wording from the first N of ``vocabulary.WORDINGS`` (1..4) with
        the task's own random stream; 1 (default) keeps the exact original prompts.
    look : {"flat", "solid"}
        How objects are drawn (``vocabulary.LOOKS``): "flat" (default) outlined polygons, or
        "solid": lit solids (a shaded cube, sphere, ...; ``objsub_fast.draw.solids``). The same
        seed gives the same scene, rule, prompt and removed set in both looks; only the
        pixels (and ``area``, the drawn pixels) differ.

    Returns
    -------
    Batch
        Its frames take 2 * W * H * 3 bytes per task (384 KiB at 256x256, 6 MiB at
        1024x1024; ``masks`` add W * H), allocated once, plus about a hundred bytes of scene
        arrays per task: 10,000 tasks at 256x256 hold 3.7 GiB. The frames are drawn
        :data:`CHUNK_TASKS` tasks at a time; for more tasks than memory holds, call it on
        slices of the seed list, reusing ``out``.

    Raises
    ------
    objsub_fast.runtime.errors.ParameterError
        (a ValueError) for any bad parameter or infeasible combination, naming it and the
        allowed range, before any work is done.

    Examples
    --------
    >>> from objsub_fast import generate_batch
    >>> batch = generate_batch([7, 8], level="L1")
    >>> batch.first_frames.shape, batch.first_frames.dtype
    ((2, 256, 256, 3), dtype('uint8'))
    >>> batch.prompts[0].endswith("Do not do anything to other objects.")
    True
    >>> task = batch.task(0)
    >>> task["generator_version"], sorted(task)[:3]
    ('0.1.0', ['canvas_size', 'difficulty', 'generator'])

    The same seed at 1024 px is the same scene at four times the resolution:

    >>> big = generate_batch([7], level="L1", canvas_size=1024, render=False)
    >>> n = batch.num_objects[0]
    >>> big.prompts[0] == batch.prompts[0], bool((big.x[0, :n] == 4 * batch.x[0, :n]).all())
    (True, True)

    An extended vocabulary with flat names and reworded prompts; its records name it:

    >>> ext = generate_batch(range(3), level="L2", vocabulary="extended", shape_names="flat",
    ...                      prompt_variants=4, render=False)
    >>> sorted(ext.task(0)["vocabulary"])
    ['colors', 'shape_names', 'shapes']

The solid look draws the same task as lit solids; its records say so:

>>> solid = generate_batch([7, 8], level="L1", look="solid")
>>> solid.prompts == batch.prompts, solid.task(0)["look"], "look" in batch.task(0)
(True, 'solid', False)
    """
    seeds = check_seeds(seeds)
    level_codes = check_levels(level, len(seeds))
    for name, flag in (("render", render), ("masks", masks)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ParameterError(f"{name} must be True or False; got {flag!r}")
    vocab = check_vocabulary(vocabulary, colors, shapes, shape_names)
    config = make_config(level_codes, canvas_size, num_objects, object_size, kind_weights,
                         vocab, prompt_variants, look)
    if out is not None:
        if not render:
            raise ParameterError("out needs render=True (there are no frames to draw into)")
        out = check_out(out, len(seeds), config.width, config.height, masks)
    scenes = generate_scenes(seeds, level_codes, config)
    frames = _draw_in_chunks(scenes, config, masks, out) if render else (None, None, None)
    return Batch(seeds, level_codes, config, scenes, frames)


#: Tasks drawn per step of :func:`generate_batch`: the frames of a long seed list are drawn
#: this many tasks at a time into the one result (the same bytes as one call per chunk).
CHUNK_TASKS = 1024


def _draw_in_chunks(scenes: dict, config, masks: bool, out):
    """``render.draw_frames`` of every task, :data:`CHUNK_TASKS` tasks at a time, into
    ``out`` (default: new arrays for every task, allocated once)."""
    n, w, h = len(scenes["num_objects"]), config.width, config.height
    if out is None:
        out = (np.empty((n, h, w, 3), np.uint8), np.empty((n, h, w, 3), np.uint8),
               np.empty((n, h, w), np.uint8) if masks else None)
    for start in range(0, n, CHUNK_TASKS):
        part = slice(start, min(start + CHUNK_TASKS, n))
        draw_frames({name: values[part] for name, values in scenes.items()}, config, masks,
                    tuple(None if a is None else a[part] for a in out))
    return out
