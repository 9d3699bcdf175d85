"""Frame sources and canvas mapping of the scorer (objsub_fast.scoring.reading.frames)."""
import numpy as np
import pytest

from objsub_fast import generate_batch
from objsub_fast.scoring import write_video
from objsub_fast.ground_truth.video import letterbox
from objsub_fast.scoring.reading.frames import FrameStream, VideoError, content_box


@pytest.fixture(scope="module")
def batch():
    return generate_batch([11, 12], level="L1")


def _frames(source, canvas=(256, 256)):
    return np.stack(list(FrameStream(source, canvas)))


@pytest.mark.parametrize("bar", [(0, 0, 0), (30, 90, 200), (255, 255, 255)])
@pytest.mark.parametrize("out_size", [(1280, 720), (720, 1280), (300, 256)])
def test_bars_are_removed_and_content_maps_back(batch, bar, out_size):
    frame = batch.first_frames[0]
    boxed = letterbox(frame, out_size, bar)
    back = _frames(boxed[None])[0]
    assert back.shape == frame.shape
    # Resampling twice blurs edges a little; the bulk of the canvas must come back exactly.
    close = np.abs(back.astype(int) - frame.astype(int)).max(axis=2) <= 40
    assert close.mean() > 0.97


def test_content_box_of_an_unpadded_frame_is_the_frame(batch):
    frame = batch.first_frames[0]
    assert content_box(frame, (256, 256)) == (0, 256, 0, 256)


def test_content_box_cuts_black_bars_exactly():
    frame = np.full((720, 1280, 3), 255, np.uint8)
    frame[:, :280] = 0
    frame[:, 1000:] = 0
    frame[300:340, 500:560] = (255, 0, 0)  # content, so the box is not all white
    assert content_box(frame, (256, 256)) == (0, 720, 280, 1000)


def test_white_padding_is_cut_only_to_the_canvas_aspect():
    frame = np.full((720, 1280, 3), 255, np.uint8)
    frame[100:200, 300:400] = (0, 0, 255)
    y0, y1, x0, x1 = content_box(frame, (256, 256))
    assert (y1 - y0) == (x1 - x0) == 720


def test_sources_folder_image_array_and_codecs_agree(batch, tmp_path):
    frames = np.repeat(batch.first_frames[1][None], 4, axis=0)
    from PIL import Image

    folder = tmp_path / "frames"
    folder.mkdir()
    for i, f in enumerate(frames):  # natural order: 2 before 10
        Image.fromarray(f).save(folder / f"frame_{i * 4}.png")
    Image.fromarray(frames[0]).save(tmp_path / "final.png")
    assert FrameStream(folder, (256, 256)).kind == "frames"
    assert np.array_equal(_frames(folder), frames)
    single = FrameStream(tmp_path / "final.png", (256, 256))
    assert single.kind == "image" and len(list(single)) == 1
    for name, codec in [("v.mp4", "libx264"), ("v.webm", "libvpx-vp9"), ("v.gif", "gif"),
                        ("h.mp4", "libx265")]:
        write_video(tmp_path / name, frames, codec=codec)
        got = _frames(tmp_path / name)
        assert got.shape == frames.shape, name
        assert np.abs(got.astype(int) - frames.astype(int)).mean() < 6, name


def test_letterboxed_video_streams_at_canvas_size(batch, tmp_path):
    frames = np.repeat(batch.first_frames[0][None], 3, axis=0)
    write_video(tmp_path / "lb.mp4", frames, out_size=(1280, 720))
    stream = FrameStream(tmp_path / "lb.mp4", (256, 256))
    got = list(stream)
    assert len(got) == 3 and got[0].shape == (256, 256, 3)
    assert stream.mapper.box[2] > 200  # pillarbox bars of about 280 px were cut
    assert stream.mapper.source_size == (1280, 720)


def _zero_frame_video(path):
    import av

    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=16)
        s.width = s.height = 64
        s.pix_fmt = "yuv420p"
        c.start_encoding()
    assert path.stat().st_size > 0


def test_bad_inputs_raise_video_error_with_reason(batch, tmp_path):
    good = tmp_path / "good.mp4"
    write_video(good, np.repeat(batch.first_frames[0][None], 16, axis=0))
    data = good.read_bytes()
    (tmp_path / "trunc.mp4").write_bytes(data[: len(data) // 2])
    (tmp_path / "empty.mp4").write_bytes(b"")
    (tmp_path / "junk.mp4").write_bytes(b"this is not a video" * 100)
    _zero_frame_video(tmp_path / "zero.mp4")
    _zero_frame_video(tmp_path / "zero.mkv")
    (tmp_path / "nofr").mkdir()
    cases = {"missing.mp4": "missing", "empty.mp4": "empty", "junk.mp4": "undecodable",
             "trunc.mp4": "undecodable", "zero.mp4": "zero frames", "zero.mkv": "zero frames",
             "nofr": "no frame images"}
    for name, word in cases.items():
        with pytest.raises(VideoError) as err:
            list(FrameStream(tmp_path / name, (256, 256)))
        assert word in str(err.value), (name, str(err.value))
    with pytest.raises(VideoError, match="zero frames"):
        list(FrameStream(np.zeros((0, 8, 8, 3), np.uint8), (256, 256)))


def test_truncated_faststart_mp4_is_reported(batch, tmp_path):
    import av

    path = tmp_path / "fs.mp4"
    with av.open(str(path), "w", options={"movflags": "faststart"}) as c:
        s = c.add_stream("libx264", rate=16)
        s.width = s.height = 256
        s.pix_fmt = "yuv420p"
        for f in np.repeat(batch.first_frames[0][None], 16, axis=0):
            for pk in s.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                c.mux(pk)
        for pk in s.encode():
            c.mux(pk)
    data = path.read_bytes()
    cut = data.find(b"mdat") + 8 + (len(data) - data.find(b"mdat")) // 2
    path.write_bytes(data[:cut])
    with pytest.raises(VideoError, match="truncated"):
        list(FrameStream(path, (256, 256)))


@pytest.mark.parametrize("pix_fmt", ["yuv420p", "yuv444p"])
def test_planar_yuv_sampling_matches_swscale_conversion(batch, tmp_path, pix_fmt):
    """Planar YUV frames are sampled from their planes (the fast path is taken) and give the
    canvas that converting the whole frame with swscale first gives, up to a few values where
    saturated colours meet."""
    import av
    from av.video.reformatter import VideoReformatter

    from objsub_fast.testing.outputs import centre_cropped
    from objsub_fast.scoring.reading.register import bars_mapping
    from objsub_fast.scoring.reading.frames import CanvasWarp

    frames = centre_cropped(np.stack([batch.first_frames[0], batch.final_frames[0]]), (480, 270))
    path = tmp_path / f"{pix_fmt}.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=8)
        stream.width, stream.height, stream.pix_fmt = 480, 270, pix_fmt
        for f in frames:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(f, format="rgb24")))
        out.mux(stream.encode())
    reformatter = VideoReformatter()
    with av.open(str(path)) as container:
        decoded = list(container.decode(video=0))
    assert decoded[0].format.name == pix_fmt
    rgb = decoded[0].to_ndarray(format="rgb24")
    fast = CanvasWarp(bars_mapping(rgb, (256, 256)))
    slow = CanvasWarp(fast.mapping)
    slow._yuv = False
    for frame in decoded:
        a = fast.from_video_frame(frame, reformatter)
        b = slow.from_video_frame(frame, reformatter)
        far = np.abs(a.astype(int) - b) > 4
        assert far.mean() < 0.01
        assert np.abs(a.astype(int) - b).mean() < 0.2
    assert isinstance(fast._yuv, tuple)


def test_frames_of_other_formats_are_converted_by_swscale():
    import av

    from objsub_fast.scoring.reading.frames import _yuv_conversion

    rgb = av.VideoFrame.from_ndarray(np.zeros((16, 16, 3), np.uint8), format="rgb24")
    assert _yuv_conversion(rgb) is None
    yuv = rgb.reformat(format="yuv420p")
    assert _yuv_conversion(yuv)[:2] == (2, 2)
    assert _yuv_conversion(rgb.reformat(format="yuv444p"))[:2] == (1, 1)
