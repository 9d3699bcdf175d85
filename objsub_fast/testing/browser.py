"""Play an mp4 in a real browser: headless Chromium loads it in a ``<video>`` element, seeks
to its last frame, draws that frame on a canvas and posts the pixels back.

The page and the video are served from 127.0.0.1 by Python's ``http.server`` in a thread of
this process; the browser runs with a fresh profile and no network beyond that address. What
comes back is the canvas's RGBA pixels, or the error the page saw (``MediaError`` codes,
``canPlayType`` answers).

Examples
--------
>>> find_chromium() is None or find_chromium().endswith(("chromium", "chrome",
...                                                      "chromium-browser", "google-chrome"))
True
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

__all__ = ["find_chromium", "BrowserError", "last_frame_in_browser", "CHROMIUM_FLAGS"]

#: The browsers tried, in order.
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
#: Headless, no sandbox (CI runs as root), no GPU, nothing fetched from the network.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--mute-audio",
                  "--autoplay-policy=no-user-gesture-required")

_PAGE = """<!doctype html>
<html><body>
<video id="v" muted playsinline preload="auto" src="/video.mp4"></video>
<canvas id="c"></canvas>
<script>
const v = document.getElementById("v");
function report(path, body) { fetch(path, {method: "POST", body: body}); }
const support = v.canPlayType('video/mp4; codecs="avc1.42E01E"') + "|" +
                v.canPlayType('video/mp4; codecs="avc1.640028"');
v.addEventListener("error", () => report("/error", JSON.stringify(
    {code: v.error ? v.error.code : null, message: v.error ? v.error.message : "", support})));
function grab(tries) {
  // the frame at the seek position, once the element has it (drawn pixels are opaque)
  const c = document.getElementById("c");
  c.width = v.videoWidth; c.height = v.videoHeight;
  const ctx = c.getContext("2d", {willReadFrequently: true});
  ctx.drawImage(v, 0, 0);
  const pixels = ctx.getImageData(0, 0, c.width, c.height).data;
  if ((v.readyState < 2 || pixels[3] !== 255) && tries > 0) {
    setTimeout(() => grab(tries - 1), 100);
    return;
  }
  report("/frame?w=" + c.width + "&h=" + c.height + "&d=" + v.duration, pixels);
}
v.addEventListener("loadedmetadata", () => {
  v.addEventListener("seeked", () => {
    if (v.requestVideoFrameCallback) {
      v.requestVideoFrameCallback(() => grab(50));
      setTimeout(() => grab(50), 2000);  // no new frame presented: draw what is there
    } else {
      grab(50);
    }
  }, {once: true});
  v.currentTime = SEEK_TO;
});
</script></body></html>
"""


class BrowserError(RuntimeError):
    """The browser did not show the video (its error, or a timeout)."""


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None."""
    for name in _BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _server(mp4: bytes, page: bytes, results: dict, done: threading.Event):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            path = self.path.split("?")[0]
            body, kind = {"/": (page, "text/html"), "/video.mp4": (mp4, "video/mp4")}.get(
                path, (None, None))
            if body is None:
                self.send_error(404)
                return
            start, end = 0, len(body)
            ranged = self.headers.get("Range", "").startswith("bytes=")
            if ranged:  # media elements fetch by ranges
                first, _, last = self.headers["Range"][6:].partition("-")
                start, end = int(first or 0), min(int(last) + 1 if last else len(body), len(body))
            self.send_response(206 if ranged else 200)
            self.send_header("Content-Type", kind)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(end - start))
            if ranged:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(body)}")
            self.end_headers()
            self.wfile.write(body[start:end])

        def do_POST(self):  # noqa: N802
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(204)
            self.end_headers()
            if not results:  # the first answer counts
                results[self.path] = data
            done.set()

        def log_message(self, *args):
            pass

    return ThreadingHTTPServer(("127.0.0.1", 0), Handler)


def last_frame_in_browser(mp4: bytes, num_frames: int, fps: int, timeout: float = 60.0,
                          browser: str | None = None) -> np.ndarray:
    """The last frame of ``mp4`` as headless Chromium shows it: (H, W, 3) uint8 RGB.

    Raises BrowserError with the page's error (or on timeout), RuntimeError if there is no
    browser.
    """
    browser = browser or find_chromium()
    if browser is None:
        raise RuntimeError("no Chromium found (Debian: apt-get install chromium)")
    seek = (num_frames - 0.5) / fps  # inside the last frame's display interval
    results: dict = {}
    done = threading.Event()
    server = _server(mp4, _PAGE.replace("SEEK_TO", repr(seek)).encode(), results, done)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with tempfile.TemporaryDirectory(prefix="objsub-chromium-") as profile:
        proc = subprocess.Popen([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", url],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            finished = done.wait(timeout)
        finally:
            proc.terminate()
            try:
                _, stderr = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, stderr = proc.communicate()
            server.shutdown()
            server.server_close()
    if not finished:
        tail = stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise BrowserError(f"no frame from the browser within {timeout:g} s: {tail}")
    for path, data in results.items():
        if path == "/error":
            raise BrowserError(f"the browser could not play the video: {json.loads(data)}")
        query = dict(part.split("=") for part in path.split("?", 1)[1].split("&"))
        w, h = int(query["w"]), int(query["h"])
        return np.frombuffer(data, np.uint8).reshape(h, w, 4)[:, :, :3].copy()
    raise BrowserError(f"unexpected answers from the page: {list(results)}")
