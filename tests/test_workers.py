"""Issue #20: the default worker count never makes a small run slower than one worker (a pool
of local workers takes seconds to start), and still uses every core for a large one."""
import pytest

from objsub_fast.dataset.run import pipeline
from objsub_fast.dataset.run.run_config import RunConfig
from objsub_fast.runtime.parallel import WORKER_START_S, default_workers


@pytest.mark.parametrize("tasks, per_task, cores, expected", [
    (1000, 0.001, 2, 1),        # the default run: about 1 s of work, less than a pool's start
    (1000, 0.001, 32, 1),
    (100_000, 0.001, 2, 2),     # 100 s of work: every core
    (1000, 0.05, 2, 2),         # 1,000 tasks with videos: 50 s of work
    (10**6, 0.001, 1, 1),
])
def test_default_workers(tasks, per_task, cores, expected):
    assert default_workers(tasks, per_task, cores) == expected


def test_a_pool_is_used_only_when_it_saves_more_than_its_start():
    for cores in (2, 4, 64):
        for serial in (0.5, 2 * WORKER_START_S, 3 * WORKER_START_S, 1000):
            workers = default_workers(1000, serial / 1000, cores)
            pooled = WORKER_START_S + serial / cores
            assert (workers == cores) == (pooled < serial), (cores, serial)


def test_the_default_1000_task_run_uses_one_worker(tmp_path, monkeypatch):
    """The run passes its sample's rate to ``default_workers``. The rate is the default run's
    on a quiet 2-core machine (about 1 ms a task): measured under the load of a parallel test
    run it was slow enough for two workers once, so the sample's timing is fixed here and the
    policy itself is the parametrized test above."""
    import dataclasses

    used = []
    real = pipeline.run_jobs
    real_sample = pipeline.sample_run
    monkeypatch.setattr(pipeline, "sample_run", lambda *a, **k: dataclasses.replace(
        real_sample(*a, **k), seconds_per_task=0.001))

    def recording(jobs, workers, *args, **kwargs):
        used.append(workers)
        return real(jobs, workers, *args, **kwargs)

    monkeypatch.setattr(pipeline, "run_jobs", recording)
    monkeypatch.setattr("joblib.cpu_count", lambda *a, **k: 2)
    pipeline.generate(RunConfig(count=1000), tmp_path / "out", quiet=True)
    assert used == [1]
    pipeline.generate(RunConfig(count=1000, seed=1), tmp_path / "two", workers=2, quiet=True)
    assert used == [1, 2]  # an explicit --workers is kept


def test_verify_of_a_small_dataset_starts_no_pool(tmp_path, monkeypatch):
    """``verify`` decides its default as ``generate`` does (#47: a 6-task dataset took 6.9 s and
    4.2 CPU-s to verify on 2 cores with a pool of 2, 3.0 s and 1.5 CPU-s with one worker)."""
    import dataclasses

    from objsub_fast.dataset.check import verify as verifying

    out = tmp_path / "out"
    pipeline.generate(RunConfig(count=6, shard_size=2), out, workers=1, quiet=True)
    used = []
    real = verifying.run_jobs

    def recording(jobs, workers, *args, **kwargs):
        used.append(workers)
        return real(jobs, workers, *args, **kwargs)

    monkeypatch.setattr(verifying, "run_jobs", recording)
    monkeypatch.setattr("joblib.cpu_count", lambda *a, **k: 2)
    assert verifying.verify(out).ok and used == [1]
    assert verifying.verify(out, workers=2).ok and used == [1, 2]  # an explicit one is kept
    real_sample = verifying.sample_run
    monkeypatch.setattr(verifying, "sample_run", lambda *a, **k: dataclasses.replace(
        real_sample(*a, **k), seconds_per_task=10.0))  # slow tasks: a pool pays
    assert verifying.verify(out).ok and used == [1, 2, 2]
