"""Measure how often a VBVR-Bench question without an objsub-fast record is recovered right.

Run: ``python scripts/recovery_rate.py LOOK VOCABULARY N [WxH]`` (e.g. ``solid extended 100``).
It generates N tasks (seeds 100.., levels L1-L4 in turn), writes each one's first frame and
prompt to a question folder, recovers the record (``scoring.vbvr.recover_record``) and compares
it with the true one: the look, every object's colour and shape, its size exactly, its centre
within 1 px, and the removed set. It prints the rate and why each failure failed.
"""
import sys
import tempfile
from pathlib import Path

from PIL import Image

from objsub_fast import generate_batch
from objsub_fast.scoring.reading.vbvr import recover_record
from objsub_fast.task.vocabulary import LEVELS, shape_code


def mismatch(real: dict, got: dict) -> str | None:
    """Why the recovered record ``got`` differs from the true one ``real`` (None: it does not)."""
    if got.get("look", "flat") != real.get("look", "flat"):
        return f"look {got.get('look', 'flat')}"
    r, g = real["object_subtraction_data"], got["object_subtraction_data"]
    if len(g["objects"]) != len(r["objects"]):
        return f"{len(g['objects'])} objects, not {len(r['objects'])}"
    twin = {}
    for o in r["objects"]:
        p = min(g["objects"], key=lambda p: (p["x"] - o["x"]) ** 2 + (p["y"] - o["y"]) ** 2)
        twin[o["id"]] = p["id"]
        if (p["color"], shape_code(p["shape"])) != (o["color"], shape_code(o["shape"])):
            return f"{o['color']} {o['shape']} read as {p['color']} {p['shape']}"
        if p["size"] != o["size"] or max(abs(p["x"] - o["x"]), abs(p["y"] - o["y"])) > 1:
            return f"size {o['size']} at ({o['x']}, {o['y']}) read as {p['size']} at " \
                   f"({p['x']}, {p['y']})"
    if sorted(twin[k] for k in r["remove_object_ids"]) != sorted(g["remove_object_ids"]):
        return "removed set"
    return None


def main(look, vocabulary, n, canvas="256x256"):
    n, canvas = int(n), tuple(int(v) for v in canvas.split("x"))
    seeds = list(range(100, 100 + n))
    batch = generate_batch(seeds, level=[LEVELS[i % len(LEVELS)] for i in range(n)],
                           vocabulary=vocabulary, look=look, canvas_size=canvas)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, seed in enumerate(seeds):
            real = batch.task(i)
            folder = Path(tmp) / str(seed)
            folder.mkdir()
            Image.fromarray(batch.first_frames[i]).save(folder / "first_frame.png")
            (folder / "prompt.txt").write_text(real["prompt"])
            try:
                why = mismatch(real, recover_record(folder))
            except Exception as exc:   # noqa: BLE001 (a failure to report, not to hide)
                why = f"error: {exc}"
            if why:
                failures.append((seed, real["level"], why))
    print(f"{look} {vocabulary} {canvas[0]}x{canvas[1]}: {n - len(failures)}/{n}")
    for failure in failures:
        print("   ", *failure)


if __name__ == "__main__":
    if not 3 <= len(sys.argv) - 1 <= 4:
        sys.exit(__doc__.split("\n\n")[1])
    main(*sys.argv[1:])
