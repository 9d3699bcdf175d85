"""Sprites drawn when first needed, with an outline whose cost grows with the sprite's area."""
import numpy as np
import pytest
from skimage.morphology import disk, erosion

from objsub_fast import generate_batch
from objsub_fast.draw.render import FILL, OUTLINE, batch_store, silhouette, sprite


def eroded(shape, size, outline):
    """The flat sprite as it was first drawn: the fill is the silhouette eroded by a disk."""
    filled = silhouette(shape, size)
    inner = erosion(np.pad(filled, outline), disk(outline)).astype(bool)[
        outline:-outline, outline:-outline]
    return np.where(inner, FILL, np.where(filled, OUTLINE, 0)).astype(np.uint8)


@pytest.mark.parametrize("shape", range(8))
@pytest.mark.parametrize("size, outline", [(7, 1), (33, 2), (61, 3), (150, 8), (240, 16)])
def test_distance_transform_outline_equals_the_erosion(shape, size, outline):
    np.testing.assert_array_equal(sprite(shape, size, outline), eroded(shape, size, outline))


def test_the_outline_is_the_exact_distance_transforms_at_every_size_and_radius():
    """The fill is the pixels farther than ``outline`` from the outside by the exact Euclidean
    distance transform (how sprites were drawn before scipy.ndimage left the drawing code)."""
    from scipy.ndimage import distance_transform_edt

    for shape in range(8):
        for size in [*range(1, 41), 61, 97]:
            filled = silhouette(shape, size)
            for outline in (0, 1, 2, 3, 5, 8) + ((13, 16, 32) if size > 60 else ()):
                inner = distance_transform_edt(np.pad(filled, 1))[1:-1, 1:-1] > outline
                expected = np.where(inner, FILL, np.where(filled, OUTLINE, 0)).astype(np.uint8)
                np.testing.assert_array_equal(sprite(shape, size, outline), expected,
                                              err_msg=f"shape {shape} size {size} r {outline}")


@pytest.mark.parametrize("size", [*range(1, 41), 61, 97, 255, 640])
def test_polygons_have_the_pixels_scikit_image_gave_them(size):
    """Polygon sprites are filled by a kernel of their own, one row at a time; they were drawn
    by ``skimage.draw.polygon`` before, and keep its pixels (checked at sizes 1-1300 and up to
    8192 when the kernel came; here a sample)."""
    from skimage.draw import polygon

    from objsub_fast.draw.render import SHAPE_OUTLINES
    from objsub_fast.task.vocabulary import SHAPE_TABLE

    for code, names in enumerate(SHAPE_TABLE):
        if names[0] not in SHAPE_OUTLINES:  # the sphere: a disk
            continue
        xy = np.array(SHAPE_OUTLINES[names[0]](size), dtype=float)
        expected = np.zeros((size, size), bool)
        expected[polygon(xy[:, 1] - 0.5, xy[:, 0] - 0.5, shape=expected.shape)] = True
        np.testing.assert_array_equal(silhouette(code, size), expected, err_msg=names[0])


def test_any_polygon_has_the_pixels_scikit_image_gives_it():
    """Polygons of 3-11 vertices at random, convex or not, crossing the frame's edges: on a
    half-pixel grid (vertices and edges through pixel centres: scikit-image counts those in)
    and anywhere."""
    from skimage.draw import polygon

    from objsub_fast.draw.render import _fill_polygon

    rng = np.random.default_rng(1)
    for k in range(1000):
        n, h, w = int(rng.integers(3, 12)), int(rng.integers(1, 60)), int(rng.integers(1, 60))
        if k % 2:
            r, c = rng.integers(-6, 2 * h + 6, n) / 2.0, rng.integers(-6, 2 * w + 6, n) / 2.0
        else:
            r, c = rng.uniform(-3, h + 3, n), rng.uniform(-3, w + 3, n)
        expected = np.zeros((h, w), bool)
        expected[polygon(r, c, shape=(h, w))] = True
        filled = np.zeros((h, w), bool)
        _fill_polygon(r, c, filled)
        np.testing.assert_array_equal(filled, expected, err_msg=f"{r.tolist()} {c.tolist()}")


def test_making_a_dataset_does_not_import_scipy_ndimage(tmp_path):
    """scipy.ndimage costs each process 0.36 CPU-s to import; generate (with videos too) and
    verify, at both looks and 1024 px, do without it (the scorer needs it)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from objsub_fast.cli import main\n"
            "for look in ('flat', 'solid'):\n"
            "    out = sys.argv[1] + '/' + look\n"
            "    videos = ['--videos'] if look == 'solid' else []\n"
            "    assert main(['generate', '--out', out, '--count', '2', '--canvas-size', '1024',"
            " '--look', look, '--workers', '1', '--quiet', *videos]) == 0\n"
            "    assert main(['verify', out, '--quiet']) == 0\n"
            "print(sorted(m for m in sys.modules if m.startswith('scipy.ndimage')))\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


@pytest.mark.parametrize("side", [2048, 4096])
def test_a_large_canvas_draws_only_the_sprites_its_objects_use(side):
    batch = generate_batch([3], level="L1", canvas_size=side, render=False)
    store = batch_store(batch.config)
    n = int(batch.num_objects[0])
    used = {(int(h), int(s)) for h, s in zip(batch.shape[0, :n], batch.size[0, :n])}
    drawn = {(int(h), int(si) + store.size_lo) for h, si in np.argwhere(store.areas >= 0)}
    assert used <= drawn and len(drawn) < 0.05 * store.areas.size
    # the areas are the sprites' drawn pixels
    for h, s in used:
        assert store.areas[h, s - store.size_lo] == np.count_nonzero(
            sprite(batch.config.vocabulary.shapes[h], s, batch.config.lengths.outline))


def test_later_batches_draw_only_what_is_new():
    first = generate_batch(range(4), canvas_size=1024, look="solid")
    store = batch_store(first.config)
    before = store.used
    generate_batch(range(4), canvas_size=1024, look="solid")      # the same objects again
    assert store.used == before > 0
    again = generate_batch(range(4), canvas_size=1024, look="solid")
    np.testing.assert_array_equal(again.first_frames, first.first_frames)
