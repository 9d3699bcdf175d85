"""The deterministic deflate encoder: valid zlib streams for any input, the same bytes in any
process, a well-formed Huffman code, and PNGs that decode to the exact pixels."""
import hashlib
import io
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from objsub_fast.draw import deflate, png
from objsub_fast.engine import generate_batch

runs = st.lists(st.tuples(st.integers(0, 255), st.integers(1, 2000)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=3000))
def test_any_bytes_round_trip(data):
    assert zlib.decompress(deflate.compress(data)) == data  # zlib also checks the Adler-32


@settings(max_examples=150, deadline=None)
@given(spec=runs)
def test_runs_round_trip(spec):
    data = b"".join(bytes([b]) * r for b, r in spec)
    stream = deflate.compress(data)
    assert zlib.decompress(stream) == data
    assert len(stream) <= deflate.max_stream_size(len(data))


def test_runs_longer_than_one_checksum_step():
    data = bytes(deflate.MAX_RUN + 1000) + b"\x07" * 70_000
    assert zlib.decompress(deflate.compress(data)) == data


def test_noise_stays_within_the_size_bound():
    data = np.random.default_rng(0).integers(0, 256, 100_000, dtype=np.uint8)
    stream = deflate.compress(data)
    assert zlib.decompress(stream) == data.tobytes()
    assert len(stream) <= deflate.max_stream_size(data.size)


def test_rejects_non_byte_arrays():
    with pytest.raises(ValueError, match="uint8"):
        deflate.compress(np.zeros(4, np.int32))


@settings(max_examples=100, deadline=None)
@given(weights=st.lists(st.integers(1, 10**6), min_size=2, max_size=300),
       limit=st.integers(9, 15))
def test_huffman_code_is_complete_limited_and_prefers_frequent_symbols(weights, limit):
    lengths = deflate.huffman_lengths(weights, limit)
    assert max(lengths) <= limit and min(lengths) >= 1
    assert sum(2.0 ** -length for length in lengths) == 1.0  # complete: Kraft sum exactly 1
    for a in range(len(weights)):  # a more frequent symbol never gets a longer code
        for b in range(len(weights)):
            if weights[a] > weights[b]:
                assert lengths[a] <= lengths[b]


def test_canonical_codes_are_prefix_free():
    lengths = deflate.huffman_lengths([5, 9, 12, 13, 16, 45], 15)
    codes = [f"{c:0{n}b}"[::-1] for c, n in zip(deflate.canonical_codes(lengths), lengths)]
    for a in codes:
        assert sum(b.startswith(a) for b in codes) == 1


def _decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im)


# Images of a few colours whose rows often repeat: the encoder's row shortcut and its runs.
flat_images = st.tuples(st.integers(1, 30), st.integers(1, 70), st.sampled_from([None, 3])).flatmap(
    lambda s: st.tuples(
        arrays(np.uint8, (s[0],) + ((s[1],) if s[2] is None else (s[1], 3)),
               elements=st.sampled_from([0, 1, 255, 128])),
        st.lists(st.integers(0, s[0] - 1), min_size=s[0], max_size=s[0])))


@settings(max_examples=120, deadline=None)
@given(image_rows=flat_images, filter_type=st.sampled_from(sorted(png.FILTERS.values())))
def test_flat_images_with_repeated_rows_decode_exactly(image_rows, filter_type):
    image, picks = image_rows
    image = image[np.sort(picks)]  # rows repeated in blocks
    data = png.encode_png(image, filter_type=filter_type, deflate="rle")
    assert np.array_equal(_decode(data), image)


@pytest.mark.parametrize("width", [8, 9, 256, 257])  # rows of whole 8-byte words and not
@pytest.mark.parametrize("filter_type", sorted(png.FILTERS.values()))
def test_blank_and_striped_images_decode_exactly(width, filter_type):
    for image in (np.zeros((5, width), np.uint8), np.full((5, width, 3), 255, np.uint8)):
        image[2:4] = 9
        assert np.array_equal(_decode(png.encode_png(image, filter_type=filter_type)), image)


def test_engine_frames_decode_exactly_and_beat_zlib_in_size():
    batch = generate_batch(range(12), level=["L1", "L2", "L3", "L4"] * 3, masks=True)
    for frames in (batch.first_frames, batch.final_frames, batch.instance_maps):
        ours, stdlib = png.encode_batch(frames), png.encode_batch(frames, deflate="zlib")
        for frame, data in zip(frames, ours):
            assert np.array_equal(_decode(data), frame)
        assert sum(map(len, ours)) < sum(map(len, stdlib))


def engine_png_digest() -> str:
    """sha256 of the PNGs (first, final, mask) of eight engine tasks, one of each level twice."""
    digest = hashlib.sha256()
    b = generate_batch(range(8), level=["L1", "L2", "L3", "L4"] * 2, masks=True)
    for frames in (b.first_frames, b.final_frames, b.instance_maps):
        for data in png.encode_batch(frames):
            digest.update(data)
    return digest.hexdigest()


def test_png_bytes_are_the_same_in_every_process():
    """The failure this encoder replaces ISA-L to prevent: same pixels, different PNG bytes
    in another process. Fresh interpreters with different hash seeds and heaps must agree
    with this one."""
    script = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
              "from test_deflate import engine_png_digest; print(engine_png_digest())")
    here = engine_png_digest()
    for seed in ("0", "1"):
        env = {"PYTHONHASHSEED": seed, "MALLOC_PERTURB_": "85" if seed == "1" else "0"}
        got = subprocess.run([sys.executable, "-c", script], capture_output=True,
                             text=True, check=True, env={**os.environ, **env}).stdout.strip()
        assert got == here


def _synthetic_image() -> np.ndarray:
    """Flat rectangles and a gradient on white, built with numpy only (no rasterizer)."""
    image = np.full((64, 96, 3), 255, np.uint8)
    image[10:30, 5:40] = (200, 30, 30)
    image[20:60, 50:90] = (30, 30, 200)
    image[40:44, :] = np.arange(96, dtype=np.uint8)[:, None] * 2
    return image


#: sha256 of ``encode_png(_synthetic_image())``, pinned when the fixed Huffman code was built.
SYNTHETIC_PNG_SHA256 = "9666c89fa22bc044baa41882a6a6329ed85b9b9ce0723c990af1323d0d76d79d"


def test_png_bytes_are_pinned_across_machines_and_versions():
    """The dataset's bytes must not depend on the machine, Numba, NumPy or Python version that
    writes them. A change here changes every dataset's bytes: only ever on purpose, with a new
    generator version."""
    data = png.encode_png(_synthetic_image())
    assert np.array_equal(_decode(data), _synthetic_image())
    assert hashlib.sha256(data).hexdigest() == SYNTHETIC_PNG_SHA256
