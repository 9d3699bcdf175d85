"""docs/reading.md "Tasks back from their records": a stored task turned back into an engine
batch gives the stored frames and instance map, and the page's WebDataset snippet runs as
written."""
import json
import re
from pathlib import Path

import numpy as np
from PIL import Image

from objsub_fast import generate_batch
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reading.md"


def page_snippet(after: str) -> str:
    """The first ```python block of the page after the text ``after``."""
    text = PAGE.read_text()
    return re.search(r"```python\n(.*?)```", text[text.index(after):], re.S).group(1)


def test_page_snippet_reads_tasks_back_identically(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    generate(RunConfig(count=9, levels=("L1", "L2", "L3", "L4"), seed=4, masks=True, shard_size=9),
             "data/masked", workers=1, quiet=True)
    scope = {}
    exec(page_snippet("## Tasks back from their records"), scope)  # asserts frames and mask equal
    assert scope["rec"]["task_index"] == 8  # the loop read every task
    mask = scope["s"]["mask.png"]
    assert mask.dtype == np.uint8 and mask.shape == (256, 256) and mask.max() >= 1


def test_vmevalkit_metadata_reads_back_identically(tmp_path):
    generate(RunConfig(count=3, levels=("L3",), format="vmevalkit", canvas_size=(320, 192)),
             tmp_path, workers=1, quiet=True)
    for folder in sorted((tmp_path / "object_subtraction_task").iterdir()):
        rec = json.loads((folder / "question_metadata.json").read_text())
        batch = generate_batch([rec["seed"]], level=rec["level"], canvas_size=rec["canvas_size"])
        for name, frames in (("first_frame.png", batch.first_frames),
                             ("final_frame.png", batch.final_frames)):
            with Image.open(folder / name) as im:
                assert np.array_equal(np.asarray(im), frames[0])
