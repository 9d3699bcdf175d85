"""PNG encoder: exact round trip through Pillow and imageio, for every filter and back-end."""
import io
import struct
import zlib

import imageio.v3 as iio
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image

from objsub_fast.draw import png

FILTERS = sorted(png.FILTERS.values())


def decode(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im)


images = st.tuples(st.integers(1, 40), st.integers(1, 40), st.sampled_from([None, 3])).flatmap(
    lambda s: arrays(np.uint8, s[:2] if s[2] is None else (*s[:2], s[2])))


@settings(max_examples=60, deadline=None)
@given(image=images, filter_type=st.sampled_from(FILTERS),
       deflate=st.sampled_from(sorted(png.DEFLATE)))
def test_round_trip_matches_pillow(image, filter_type, deflate):
    data = png.encode_png(image, filter_type=filter_type, deflate=deflate)
    assert np.array_equal(decode(data), image)


def test_batch_round_trip_with_imageio_and_mode():
    rng = np.random.default_rng(1)
    frames = rng.integers(0, 256, (3, 9, 13, 3), dtype=np.uint8)
    for frame, data in zip(frames, png.encode_batch(frames)):
        assert np.array_equal(iio.imread(data), frame)
        with Image.open(io.BytesIO(data)) as im:
            assert im.mode == "RGB" and im.size == (13, 9)


def test_container_chunks_and_crcs():
    data = png.encode_png(np.zeros((4, 5), np.uint8))
    assert data.startswith(png.SIGNATURE)
    pos, tags = len(png.SIGNATURE), []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(tag + body)
        tags.append(tag)
        pos += 12 + length
    assert tags == [b"IHDR", b"IDAT", b"IEND"]
    assert struct.unpack(">IIBB", data[16:26]) == (5, 4, 8, 0)


def test_filters_give_same_pixels_and_up_is_default():
    frame = np.full((32, 32, 3), 255, np.uint8)
    frame[8:20, 10:30] = (255, 0, 0)
    encoded = [png.encode_png(frame, filter_type=f) for f in FILTERS]
    assert all(np.array_equal(decode(d), frame) for d in encoded)
    assert png.encode_png(frame) == png.encode_png(frame, filter_type=png.FILTER_UP)
    assert zlib.decompress(encoded[2][33 + 8:-12 - 4])[0] == png.FILTER_UP


@pytest.mark.parametrize("bad", [np.zeros((2, 3, 4), np.uint8), np.zeros((2, 3), np.float32),
                                 np.zeros(5, np.uint8)])
def test_rejects_unsupported_arrays(bad):
    with pytest.raises(ValueError, match="uint8"):
        png.encode_png(bad)


def test_rejects_unknown_filter_and_backend():
    with pytest.raises(ValueError, match="filter_type"):
        png.encode_png(np.zeros((2, 2), np.uint8), filter_type=7)
    with pytest.raises(ValueError, match="deflate"):
        png.encode_png(np.zeros((2, 2), np.uint8), deflate="lzma")
