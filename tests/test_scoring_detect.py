"""Colour classes, components and shape read-out (objsub_fast.scoring.tracking.detect)."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.draw.render import sprite
from objsub_fast.scoring.tracking.detect import (BG, CLASS_TOLERANCE, COLOR_CLASS0, OTHER, OUTLINE,
                                        Detector, class_lut, classify_shapes, shape_templates)
from objsub_fast.task.vocabulary import COLOR_RGB, SHAPES


def _classes(rgbs):
    px = np.array(rgbs, np.uint8).reshape(1, -1, 3)
    det = Detector((px.shape[1], 1), 10**9)
    return det(px).cls[0].tolist()


def test_reference_colours_take_their_class():
    refs = [(255, 255, 255), (0, 0, 0)] + [tuple(c) for c in COLOR_RGB]
    assert _classes(refs) == [BG, OUTLINE] + [COLOR_CLASS0 + c for c in range(6)]


def test_codec_sized_shifts_keep_the_class_and_far_colours_are_other():
    rng = np.random.default_rng(0)
    refs = np.vstack([[255, 255, 255], [0, 0, 0], COLOR_RGB]).astype(int)
    for _ in range(20):
        shifted = np.clip(refs + rng.integers(-12, 13, refs.shape), 0, 255)
        assert _classes(shifted) == [BG, OUTLINE] + [COLOR_CLASS0 + c for c in range(6)]
    # mid grey, pink, dark teal: far (> tolerance) from every reference
    assert _classes([(128, 128, 128), (255, 128, 180), (0, 90, 90)]) == [OTHER] * 3
    assert 0 < CLASS_TOLERANCE < 30  # below every reference-pair distance but blue/purple


def test_lut_is_cached_and_compact():
    lut = class_lut()
    assert lut is class_lut() and lut.shape == (64 ** 3,) and lut.max() <= OTHER


@pytest.mark.parametrize("size", [20, 27, 33, 40])
def test_every_shape_is_read_back_at_every_size(size):
    templates = np.stack([shape_templates(size)] * 4)
    for code in range(len(SHAPES)):
        img = np.full((size + 10, size + 10, 3), 255, np.uint8)
        sp = sprite(code, size)
        img[5:5 + size, 5:5 + size][sp == 1] = 0
        img[5:5 + size, 5:5 + size][sp == 2] = COLOR_RGB[code]
        comps = Detector((size + 10, size + 10), 10)(img)
        assert len(comps) == 1
        assert comps.color[0] == code
        assert classify_shapes(comps.features, templates)[0, 0] == code, (SHAPES[code], size)


def test_components_of_a_rendered_scene_match_its_objects():
    batch = generate_batch(np.arange(10), level="L2")
    for i in range(len(batch)):
        comps = Detector((256, 256), 40)(batch.first_frames[i])
        n = int(batch.num_objects[i])
        assert len(comps) == n
        order = np.lexsort((comps.cx, comps.cy))
        exp = np.lexsort((batch.x[i, :n], batch.y[i, :n]))
        assert sorted(comps.color.tolist()) == sorted(batch.color[i, :n].tolist())
        assert np.array_equal(comps.area[order], batch.area[i, :n][exp])
        assert (comps.cls == BG).sum() == 256 * 256 - batch.area[i, :n].sum()


def _scene(objects, size=(128, 128)):
    """A white frame with (shape, colour, left, top, size) sprites drawn."""
    img = np.full((size[1], size[0], 3), 255, np.uint8)
    for shape, color, left, top, s in objects:
        sp = sprite(shape, s)
        view = img[top:top + s, left:left + s]
        view[sp == 1] = 0
        view[sp == 2] = COLOR_RGB[color]
    return img


def _match(comps, ref, lost, gate=np.inf):
    from objsub_fast.scoring.tracking.detect import match

    ref = np.array(ref, float)
    n = len(ref)
    size = np.full(n, 24)
    area = np.full(n, float(comps.area.max()))
    return match(ref[:, 0], ref[:, 1], area, np.array(lost), np.zeros(n, int),
                 np.zeros(n, int), size, area, np.stack([shape_templates(24)] * n), comps,
                 gate=gate)[0]


def test_tracked_matches_are_gated_and_lost_objects_need_a_whole_lookalike():
    comps = Detector((128, 128), 20)(_scene([(0, 0, 90, 50, 24)]))
    # tracked 60 px away: matched without a gate, refused with one (the object is lost)
    assert _match(comps, [(42, 62)], [False])[0] == 0
    assert _match(comps, [(42, 62)], [False], gate=36)[0] == -1
    # a lost object is re-acquired anywhere by a whole look-alike ...
    assert _match(comps, [(20, 20)], [True])[0] == 0
    # ... but not by one cut off at the frame's border (a slide-out's remnant)
    edge = Detector((118, 128), 20)(_scene([(0, 0, 0, 50, 24)])[:, 10:].copy())
    assert edge.edge.tolist() == [True]
    assert _match(edge, [(60, 60)], [True])[0] == -1


def test_a_blurred_small_object_keeps_its_colour_from_its_interior():
    from PIL import Image, ImageFilter

    img = _scene([(2, 3, 40, 40, 21)], (100, 100))   # a 21 px yellow pyramid
    soft = np.asarray(Image.fromarray(img).filter(ImageFilter.GaussianBlur(1.5)))
    comps = Detector((100, 100), 20)(soft)
    assert len(comps) == 1 and comps.color[0] in (3, -1)   # yellow or uncertain, never green
