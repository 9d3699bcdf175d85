"""``iter_samples``: the samples of a dataset without writing it, split between ranks and
DataLoader workers; together the partitions hold exactly the shards' samples, once each."""
import sys
import types

import pytest

import objsub_fast
from objsub_fast import iter_samples
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.dataset.run.pipeline import generate
from objsub_fast.runtime.errors import ParameterError

from filetree import shard_samples

COUNT = 13


def members(sample):
    return {k: v for k, v in sample.items() if not k.startswith("__")}


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("wds")
    generate(RunConfig(count=COUNT, shard_size=5, seed=9, masks=True, videos=True,
                       video_frames=8), out, workers=1, quiet=True)
    return shard_samples(out)


def test_four_ranks_together_give_the_shard_samples_once_each(shards):
    seen = {}
    for rank in range(4):
        for s in iter_samples(COUNT, seed=9, rank=rank, world_size=4, chunk_size=2, masks=True,
                              videos=True, video_frames=8):
            assert s["__key__"] not in seen
            seen[s["__key__"]] = members(s)
            assert s["__index__"] == int(s["__key__"])
    assert seen == shards


def test_dataloader_workers_split_a_rank_again(shards, monkeypatch):
    """2 ranks x 2 workers (torch's get_worker_info faked: torch is not a dependency)."""
    worker = types.SimpleNamespace(id=0, num_workers=2)
    torch = types.ModuleType("torch")
    torch.utils = types.SimpleNamespace(data=types.SimpleNamespace(
        get_worker_info=lambda: worker))
    monkeypatch.setitem(sys.modules, "torch", torch)
    parts = []
    for rank in range(2):
        for worker.id in range(2):
            parts.append([s["__key__"] for s in iter_samples(
                COUNT, seed=9, rank=rank, world_size=2, chunk_size=3, masks=True, videos=True,
                video_frames=8)])
    keys = [k for part in parts for k in part]
    assert sorted(keys) == sorted(shards) and len(keys) == len(set(keys))
    assert all(parts)  # 5 blocks of 3 over 4 partitions: each gets work


def test_without_torch_one_process_gets_everything_in_order(shards):
    keys = [s["__key__"] for s in iter_samples(COUNT, seed=9, masks=True, videos=True,
                                               video_frames=8)]
    assert keys == sorted(shards)


def test_bad_partitions_are_refused():
    with pytest.raises(ParameterError, match="rank must be an integer in \\[0, 1\\]"):
        next(iter_samples(4, rank=2, world_size=2))
    with pytest.raises(ParameterError, match="world_size must be an integer >= 1"):
        next(iter_samples(4, world_size=0))
    with pytest.raises(ParameterError, match="--count"):
        next(iter_samples(0))


def test_top_level_name():
    assert objsub_fast.iter_samples is iter_samples
    assert "iter_samples" in objsub_fast.__all__
