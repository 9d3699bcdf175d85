"""Output bytes are pinned: the SHA-256 of every file of three small datasets, as written by
objsub-fast 0.1.0 before the dataset package was reshaped. Any change to a byte of output fails
here (and must bump ``generator_version``). ``README.md`` (the Hugging Face card) and
``metadata.jsonl`` (a folder layout's index) were added later beside the files 0.1.0 wrote,
whose hashes they left as they were. The card's pin changed once, when its ``configs`` gained
the dataset's identity so that ``datasets`` never loads another dataset's cached rows (#47):
the card as written before is pinned below, and ``verify`` still recognises it (a note). A
dataset written by 0.1.0 (``tests/data/``) must still pass ``verify`` in both modes."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from objsub_fast.dataset.run.card import card_bytes
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.check.verify import verify
from objsub_fast.runtime.lock import LOCK_FILE

from filetree import tree

DATA = Path(__file__).parent / "data"
PINNED = json.loads((DATA / "pinned_sha256.json").read_text())
CASES = {
    "webdataset": RunConfig(count=5, shard_size=3, seed=7),
    "webdataset-masks": RunConfig(count=5, shard_size=3, seed=7, masks=True, levels=("L2", "L3")),
    "vmevalkit": RunConfig(count=5, shard_size=3, seed=7, format="vmevalkit"),
}


@pytest.mark.parametrize("case", CASES)
def test_every_file_has_its_pinned_sha256(case, tmp_path):
    generate(CASES[case], tmp_path, workers=1, chunk_size=2, quiet=True)
    files = tree(tmp_path)
    assert LOCK_FILE not in files  # the run's lock, removed when it ended (not output)
    got = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
    assert sorted(got) == sorted(PINNED[case])
    assert [n for n in sorted(got) if got[n] != PINNED[case][n]] == []


#: README.md of each case as written before the cards carried the dataset's identity (#47).
CARDS_BEFORE_47 = {
    "webdataset": "ae238c90cd630445b887712c2ab43428c7a0d0c7404f793b02a84adb47522507",
    "webdataset-masks": "b0ed51b504d3a75f4b553830f33c1a18552afc9ef869e08679ec748bddbfd853",
    "vmevalkit": "7523c7ae57ca25e6610c8b3258e335618688d342677c86e760665b0e6270991e",
}


@pytest.mark.parametrize("case", CASES)
def test_the_card_before_47_is_the_legacy_card(case):
    got = hashlib.sha256(card_bytes(CASES[case], legacy=True)).hexdigest()
    assert got == CARDS_BEFORE_47[case]


@pytest.mark.parametrize("deep", [False, True])
@pytest.mark.parametrize("fmt", ["webdataset", "vmevalkit"])
def test_dataset_written_by_0_1_0_verifies(fmt, deep, tmp_path):
    shutil.copytree(DATA / "written-by-0.1.0" / fmt, tmp_path / fmt)
    report = verify(tmp_path / fmt, workers=1, deep=deep)
    assert report.problems == [] and report.tasks == 5
