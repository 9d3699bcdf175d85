"""A real browser plays the ground-truth mp4: headless Chromium loads it in a ``<video>``,
seeks to the end and draws the last frame on a canvas, which matches the task's final frame
within codec tolerance (``objsub_fast.testing.browser``). CI installs Debian's ``chromium``
(``.ci/run``), which decodes H.264; elsewhere the test skips saying so."""
import io

import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.testing.browser import (BrowserError, find_chromium,
                                                   last_frame_in_browser)
from objsub_fast.ground_truth.video import MAX_MEAN_ERROR, MIN_PSNR, VideoSpec, encode_transitions

pytestmark = pytest.mark.skipif(
    find_chromium() is None,
    reason="no Chromium on this machine (Debian: apt-get install chromium); CI has it")

FRAMES = 20


def errors(got, want):
    err = np.abs(got.astype(np.int16) - want)
    return err.mean(), 10 * np.log10(255.0 ** 2 / max(np.mean(err.astype(float) ** 2), 1e-9))


@pytest.mark.parametrize("encoder, style, size", [("objsub", "slide", 256),
                                                  ("objsub", "fade", 256),
                                                  ("objsub", "shrink", 1024),
                                                  ("x264", "slide", 256)])
def test_chromium_shows_the_final_frame(encoder, style, size):
    import av

    batch = generate_batch([3], canvas_size=size)
    mp4 = encode_transitions(batch, VideoSpec(style, num_frames=FRAMES, encoder=encoder))[0]
    shown = last_frame_in_browser(mp4, FRAMES, 16)
    final, first = batch.final_frames[0], batch.first_frames[0]
    assert shown.shape == final.shape
    mean, psnr = errors(shown, final)
    assert mean < MAX_MEAN_ERROR and psnr > MIN_PSNR, (mean, psnr)
    assert errors(shown, first)[0] > 2 * mean  # the last frame, not the first
    with av.open(io.BytesIO(mp4)) as container:
        ffmpeg = list(container.decode(video=0))[-1].to_ndarray(format="rgb24")
    assert errors(shown, ffmpeg)[1] > 35  # the same picture up to the YUV -> RGB rounding


def test_a_broken_video_is_reported_not_drawn():
    with pytest.raises(BrowserError, match="could not play|no frame"):
        last_frame_in_browser(b"\0\0\0\x18ftypisom" + bytes(64), FRAMES, 16, timeout=30)
