"""Ground-truth transitions draw every removed object as the renderer draws it, for any
vocabulary and canvas: the first frame first, the final frame last, nothing outside the removed
objects' squares (and slide paths) ever changes, and a moving, shrinking or fading object keeps
its own colour, shape and outline width (checked against the vocabulary and the renderer's own
sprite definition, not against the transition code)."""
import numpy as np
import pytest
from skimage.morphology import disk, erosion

from objsub_fast import generate_batch
from objsub_fast.draw.render import sprite
from objsub_fast.task.vocabulary import COLOR_TABLE
from objsub_fast.ground_truth.transitions import (STYLE_NAMES, plan_slides, render_transition,
                                                  task_arrays)

FRAMES = 6
CASES = {
    "classic-256": dict(),
    "classic-1024": dict(canvas_size=1024),
    "extended-256": dict(vocabulary="extended"),
    "extended-flat-1024": dict(vocabulary="extended", shape_names="flat", canvas_size=1024),
    # shape and colour codes differ from the global ones: the code -> shape lookup is tested
    "picked-flat-512": dict(colors="teal,pink,brown,red", shapes="pillar,dome,hourglass,cube",
                            shape_names="flat", canvas_size=512),
}
TASKS = {"256": 8, "512": 3, "1024": 2}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    options = CASES[request.param]
    count = TASKS[str(options.get("canvas_size", 256))]
    batch = generate_batch(np.arange(count) + 11, level=(["L4", "L3", "L1", "L2"] * 2)[:count],
                           **options)
    return request.param, batch, {s: render_transition(batch, s, FRAMES) for s in STYLE_NAMES}


def _zones(batch, i, style):
    """Per removed object: the boolean zone it may touch (its square; for a slide its swept
    path to the canvas edge), and whether it slides."""
    w, h = batch.canvas_size
    a = task_arrays(batch, i)
    plans = plan_slides(a["left"], a["top"], a["size"], a["removed"], (w, h))
    zones = {}
    for k in np.flatnonzero(a["removed"]):
        x0, y0 = int(a["left"][k]), int(a["top"][k])
        x1, y1 = x0 + int(a["size"][k]), y0 + int(a["size"][k])
        slides = style == "slide" and plans[k] is not None
        if slides:
            dx, dy, _ = plans[k]
            x0, x1 = (0, x1) if dx < 0 else (x0, w) if dx > 0 else (x0, x1)
            y0, y1 = (0, y1) if dy < 0 else (y0, h) if dy > 0 else (y0, y1)
        zone = np.zeros((h, w), bool)
        zone[max(y0, 0):y1, max(x0, 0):x1] = True
        zones[int(k)] = (zone, slides)
    return zones


def _fill_rgb(batch, code):
    return np.array(COLOR_TABLE[batch.config.vocabulary.colors[code]], np.int16)


def _check_drawn(batch, frame, zone, k, i, style):
    """The object drawn in ``zone`` of ``frame`` is object k of task i as the renderer draws
    it: its fill colour and black only; fill = drawn pixels eroded by the outline width; and
    (away from the canvas edge) exactly the renderer's sprite of its shape at some size."""
    a = task_arrays(batch, i)
    patch = np.where(zone[..., None], frame, 255).astype(np.int16)
    colours = {tuple(c) for c in patch[zone].reshape(-1, 3)}
    fill = tuple(_fill_rgb(batch, a["color"][k]))
    assert colours <= {(255, 255, 255), (0, 0, 0), fill}, (style, i, k, colours - {fill})
    drawn = zone & (patch != 255).any(-1)
    if not drawn.any():
        return
    rows, cols = np.flatnonzero(drawn.any(1)), np.flatnonzero(drawn.any(0))
    h, w = drawn.shape
    if rows[0] == 0 or cols[0] == 0 or rows[-1] == h - 1 or cols[-1] == w - 1:
        return  # clipped by the canvas: the outline is cut there
    outline = batch.config.lengths.outline
    box = drawn[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    inner = erosion(np.pad(box, outline), disk(outline)).astype(bool)[
        outline:-outline, outline:-outline]
    is_fill = (patch[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1] == fill).all(-1)
    if fill != (0, 0, 0):
        assert np.array_equal(is_fill, inner), (style, i, k, "outline width")
    code = batch.config.vocabulary.shapes[int(a["shape"][k])]
    matches = []
    for s in range(max(box.shape), int(a["size"][k]) + 1):
        mask = sprite(code, s, outline) > 0
        r, c = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
        if np.array_equal(mask[r[0]:r[-1] + 1, c[0]:c[-1] + 1], box):
            matches.append(s)
    assert matches, (style, i, k, "not the renderer's sprite of its shape")


def _check_fading(batch, frame, first, zone, k, i, style):
    """A fading object: its fill and outline pixels are each one colour, both the same blend
    of their first-frame colour toward white."""
    a = task_arrays(batch, i)
    fill = _fill_rgb(batch, a["color"][k])
    was_fill = zone & (first == fill).all(-1)
    was_line = zone & (first == 0).all(-1)
    got_fill, got_line = np.unique(frame[was_fill], axis=0), np.unique(frame[was_line], axis=0)
    assert len(got_fill) == len(got_line) == 1, (style, i, k)
    t = float(got_line[0][0]) / 255
    assert (got_line[0] == got_line[0][0]).all()
    assert np.abs(got_fill[0] - ((1 - t) * fill + t * 255)).max() <= 1, (style, i, k)


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_transition_draws_objects_as_the_renderer(case, style):
    name, batch, videos = case
    video = videos[style]
    assert np.array_equal(video[:, 0], batch.first_frames), name
    assert np.array_equal(video[:, -1], batch.final_frames), name
    checked = 0
    for i in range(len(batch)):
        zones = _zones(batch, i, style)
        outside = ~np.any([z for z, _ in zones.values()], axis=0)
        first = batch.first_frames[i]
        assert (video[i][:, outside] == first[outside]).all(), (name, style, i)
        for f in range(1, FRAMES - 1):
            for k, (zone, slides) in zones.items():
                if style == "fade" or (style == "slide" and not slides):
                    _check_fading(batch, video[i, f], first, zone, k, i, style)
                else:
                    _check_drawn(batch, video[i, f], zone, k, i, style)
                checked += 1
    assert checked > 0
