"""Settings of the whole suite.

The suite runs one worker more than cores (pytest-xdist, ``-n auto --dist loadfile``):
each test file runs whole on one worker process, so a file's module-scoped fixtures are built
once. Every process of a run (the workers and the subprocesses tests start, whatever their
working folder) imports this checkout's package: its folder goes first on ``PYTHONPATH``.

Before the workers start, the package's Numba kernels are compiled into their on-disk cache
once (``warm_kernels.py``, two processes side by side: about 3 minutes on 2 cores), when this
checkout's sources have not been warmed yet (the package's source stamp is kept in pytest's
cache): on a fresh checkout each worker, and each subprocess a test starts, would otherwise
compile them again. The terminal says so before it starts and when it is done.

When the environment says not to write bytecode (``PYTHONDONTWRITEBYTECODE``, as on CI's
machine), every process of the run would compile the package's sources again (0.1 CPU-s a
process, about 300 processes); the controller writes their ``.pyc`` files once instead
(:func:`_compile_bytecode`), which Python still reads. So it does for the test files, which
each worker would otherwise rewrite (pytest's assertion rewriting) and compile again while
collecting them all (:func:`_compile_tests`).
"""
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _this_checkout_first() -> None:
    """Put this checkout first on ``sys.path`` and on ``PYTHONPATH`` (once)."""
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if not entries or entries[0] != str(ROOT):
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT), *(p for p in entries if p != str(ROOT))])
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))


_this_checkout_first()


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the CPUs this process may run on (hyper-threads count),
    at most 8 (beyond that the largest test files, each whole on one worker, set the time).
    The tests wait on subprocesses, servers and timeouts about a fifth of the time, which the
    extra worker fills: on 2 cores, with the kernels compiled, 3 workers ran the suite in 403 s
    where 2 took 496 s (one run each, in turn, load 1.4-3.9)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus + 1, 8))


def _compile_bytecode() -> None:
    """Write the package's ``.pyc`` files (beside the sources, in ``__pycache__``) if Python
    was told not to: it reads them all the same. Up-to-date files are left alone."""
    if not sys.dont_write_bytecode:
        return
    import compileall

    compileall.compile_dir(ROOT / "objsub_fast", quiet=1)


def _compile_tests(config) -> None:
    """Write the test files' assertion-rewritten code where pytest looks for it before
    rewriting a file (``__pycache__/*-pytest-*.pyc``, keyed on the source's hash), and the
    helper modules' ``.pyc`` files, if Python was told not to write bytecode: each worker
    collects every file, and rewriting and compiling them took 4.4 of its 11 CPU-s of
    collection (2026-11-29). Files already written are left alone; with another pytest
    (these are its internals) the workers rewrite the files themselves, as before."""
    if not sys.dont_write_bytecode:
        return
    try:
        from _pytest.assertion.rewrite import (PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc,
                                               assertstate_key, get_cache_dir, try_makedirs)
        state = config.stash[assertstate_key]
    except (ImportError, AttributeError, KeyError):  # another pytest, or --assert=plain
        return
    import compileall

    folder = Path(__file__).parent
    for path in sorted(folder.glob("*.py")):
        if not (path.name.startswith("test_") or path.name == "conftest.py"):
            compileall.compile_file(path, quiet=1)
            continue
        pyc = get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc) is None and try_makedirs(pyc.parent):
            source_hash, code = _rewrite_test(path, config)
            _write_pyc(state, code, source_hash, pyc)


def pytest_sessionstart(session):
    """Warm the kernel cache before pytest-xdist starts its workers (the controller only)."""
    config = session.config
    if hasattr(config, "workerinput"):
        return
    _compile_bytecode()
    if not getattr(config.option, "numprocesses", None):
        return
    _compile_tests(config)
    from objsub_fast.runtime._numba import package_stamp

    stamp, cache = package_stamp(), getattr(config, "cache", None)
    if cache is not None and cache.get("objsub-fast/warm-kernels", None) == stamp:
        return
    say = _say(config)
    say("objsub-fast: compiling the Numba kernels into their cache before the tests start "
        "(once per checkout and version of the sources; about 3 minutes on 2 cores)...")
    started = time.perf_counter()
    script = str(Path(__file__).with_name("warm_kernels.py"))
    procs = [subprocess.Popen([sys.executable, script, part], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
             for part in ("video", "generate")]
    outputs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):  # the tests will show what is wrong
        say("warm_kernels.py failed; kernels compile as the tests need them\n"
            + "".join(outputs)[-2000:])
        return
    if cache is not None:
        cache.set("objsub-fast/warm-kernels", stamp)
    say(f"objsub-fast: kernels ready in {time.perf_counter() - started:.0f} s; "
        "starting the tests")


def _say(config):
    """A function writing one line to the terminal (pytest's own reporter, which shows it
    whatever is captured)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return lambda line: print(line, file=sys.stderr, flush=True)
    return lambda line: (reporter.write_line(line), reporter.flush())
