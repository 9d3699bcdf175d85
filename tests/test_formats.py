"""Issue #48: every output format of the table keeps the contract of ``OutputFormat``: it
subclasses it, defines every required hook, and writes a small dataset that ``verify`` passes,
whose shards it finds again (resume) and whose files it owns and accounts for."""
import inspect
from pathlib import Path

import pytest

from objsub_fast.dataset.check.verify import verify
from objsub_fast.dataset.content.manifest import PROGRESS_DIR, read_manifest
from objsub_fast.dataset.formats import FORMATS, get_format, shards_are_files
from objsub_fast.dataset.formats.base import REQUIRED, OutputFormat
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.dataset.run.run_config import RunConfig

#: Each format of the table (VBVR in both its packings), as a small run.
RUNS = {name: {} for name in FORMATS} | {"vbvr-folders": {"vbvr_pack": "folders"}}


def _format_of(run: str) -> str:
    return run.partition("-folders")[0]


def test_the_table_names_each_format_by_its_name():
    assert list(FORMATS) == ["webdataset", "vmevalkit", "vbvr", "vbvr-bench"]
    assert all(fmt.NAME == name and get_format(name) is fmt for name, fmt in FORMATS.items())


@pytest.mark.parametrize("name", FORMATS)
def test_a_format_subclasses_the_base_and_defines_every_required_hook(name):
    fmt = FORMATS[name]
    assert isinstance(fmt, OutputFormat) and type(fmt) is not OutputFormat
    assert fmt.unimplemented() == []
    for hook in REQUIRED:  # the same arguments as the base's
        assert (list(inspect.signature(getattr(fmt, hook)).parameters)
                == list(inspect.signature(getattr(OutputFormat(), hook)).parameters)), hook


def test_a_format_missing_a_hook_is_named():
    class Half(OutputFormat):
        NAME = "half"

        def shard_name(self, k):
            return str(k)

    assert Half().unimplemented() == [h for h in REQUIRED if h != "shard_name"]
    with pytest.raises(NotImplementedError, match="cannot be extended"):
        Half().extend(Path("."), [], Path("."))


@pytest.mark.parametrize("run", RUNS)
def test_a_format_writes_and_verifies_a_small_dataset(run, tmp_path):
    config = RunConfig(count=3, shard_size=2, seed=5, video_frames=10,
                       format=_format_of(run), **RUNS[run])
    fmt = get_format(config.format)
    manifest = generate(config, tmp_path, workers=1, quiet=True)
    assert manifest["complete"] and manifest["num_shards"] == 2
    report = verify(tmp_path, workers=1, strict=True)
    assert report.ok, report.problems
    owned = fmt.owned_paths(tmp_path)
    assert owned and all(p.exists() for p in owned)
    assert all(fmt.shard_present(tmp_path, e, tmp_path / PROGRESS_DIR, config)
               for e in read_manifest(tmp_path)["shards"])
    folders = fmt.task_folders(config)
    if shards_are_files(config):
        assert folders is None
        assert all((tmp_path / e["name"]).is_file() for e in manifest["shards"])
    else:  # a store's listing finds each task folder by name
        root, index_of = folders
        assert sorted(index_of(p.name) for p in (tmp_path / root).iterdir()) == [0, 1, 2]
    pattern = fmt.shard_pattern(manifest["num_shards"])
    assert pattern is None or sorted(tmp_path.glob("objsub-*.tar")) == [
        tmp_path / fmt.shard_name(k) for k in range(manifest["num_shards"])]
