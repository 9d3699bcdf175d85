"""Task index -> seed/level mapping and shard plan."""
import numpy as np
from hypothesis import given, strategies as st

from objsub_fast.dataset.content.shards import (MAX_SEED, chunks, mix63, plan_shards, task_key,
                                        task_levels, task_seeds)


@given(base=st.integers(0, MAX_SEED), start=st.integers(0, 10**12), n=st.integers(1, 50),
       cut=st.integers(0, 50))
def test_seed_is_a_pure_function_of_base_and_index(base, start, n, cut):
    whole = task_seeds(base, start, start + n)
    cut = min(cut, n)
    parts = np.concatenate([task_seeds(base, start, start + cut),
                            task_seeds(base, start + cut, start + n)])
    assert np.array_equal(whole, parts)
    assert whole.dtype == np.int64 and (whole >= 0).all()


def test_seeds_are_distinct_and_differ_between_bases():
    a, b = task_seeds(0, 0, 200_000), task_seeds(1, 0, 200_000)
    assert len(np.unique(a)) == len(a)
    assert not np.array_equal(a, b)


def test_mix63_is_a_bijection_on_a_small_window():
    x = np.arange(2**16, dtype=np.uint64) + np.uint64(2**62)
    y = mix63(x)
    assert len(np.unique(y)) == len(x) and (y < np.uint64(2**63)).all()


def test_levels_are_interleaved_with_equal_counts():
    levels = task_levels(("L1", "L2", "L3"), 0, 9)
    assert levels == ["L1", "L2", "L3"] * 3
    assert task_levels(("L1", "L2"), 5, 7) == ["L2", "L1"]


def test_plan_covers_every_index_once():
    plan = plan_shards(25, 10)
    assert [(s.start, s.stop) for s in plan] == [(0, 10), (10, 20), (20, 25)]
    assert [c for s in plan for c in chunks(s, 4)][:3] == [(0, 4), (4, 8), (8, 10)]
    assert sum(s.count for s in plan) == 25


def test_keys_sort_in_index_order():
    keys = [task_key(i) for i in (0, 9, 10, 123456)]
    assert keys == sorted(keys) and "." not in "".join(keys)


def test_auto_chunk_keeps_a_frame_array_under_the_budget():
    from objsub_fast.dataset.content.plan import CHUNK_FRAME_BYTES, auto_chunk_size
    assert auto_chunk_size((256, 256)) == 160
    for size in [(64, 64), (300, 200), (4096, 4096)]:
        n = auto_chunk_size(size)
        assert n >= 1 and (n == 1 or n * size[0] * size[1] * 3 <= CHUNK_FRAME_BYTES)


@given(base=st.integers(0, MAX_SEED), index=st.integers(0, MAX_SEED))
def test_task_index_inverts_the_seed_plan(base, index):
    from objsub_fast.dataset.content.shards import task_index, unmix63

    seed = int(task_seeds(base, index, index + 1)[0])
    assert task_index(base, seed) == index
    assert unmix63(int(mix63(np.array([index], dtype=np.uint64))[0])) == index
