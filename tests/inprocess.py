"""The ``objsub-fast`` command run in the test's own process, for tests of what a command does
and says rather than of its process (a kill, a signal, a memory limit, a fresh interpreter).

A subprocess imports NumPy, Numba and the package and loads the compiled kernels again (1-3
CPU-s each), and starts its own pool of workers; in this process all of that is done once.
:func:`run_cli` calls :func:`objsub_fast.cli.main` as the console script does (its exit
status from the return value or ``SystemExit``) and returns what ``subprocess.run`` would:
the status, and stdout and stderr as text. fsspec's cached file systems are dropped before
and after, as a new process would not have them; with ``env``, so is the pool of workers
(whose processes keep the environment they started with).
"""
import contextlib
import io
import os
import signal
import subprocess
import threading


def _forget_filesystems() -> None:
    """Drop fsspec's cached file-system objects: a fresh process would make its own, from the
    environment of its call (an object store's endpoint and keys)."""
    import sys

    spec = sys.modules.get("fsspec.spec")
    classes = [spec.AbstractFileSystem] if spec is not None else []
    while classes:  # each class keeps its own instances
        cls = classes.pop()
        cls.clear_instance_cache()
        classes.extend(cls.__subclasses__())


def _stop_worker_pool() -> None:
    """Stop joblib's reusable pool of local workers, if this process has one: its workers
    hold the environment they were started with, and a run given ``env`` needs a pool that
    sees it (as a new process's pool would)."""
    import sys

    pools = sys.modules.get("joblib.externals.loky.reusable_executor")
    if pools is None:
        return
    with pools._executor_lock:
        executor, pools._executor = pools._executor, None
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)


def run_cli(argv, cwd=None, env=None) -> subprocess.CompletedProcess:
    """``objsub-fast *argv`` in this process, from folder ``cwd``, with ``env`` added to the
    environment for the call (both restored after it, as are the signal handlers the command
    line installs)."""
    from objsub_fast.cli import main

    argv = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    in_main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if in_main \
        else {}
    before = os.getcwd()
    _forget_filesystems()
    if env:
        _stop_worker_pool()
    try:
        os.environ.update({k: str(v) for k, v in (env or {}).items()})
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code
    finally:
        os.chdir(before)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        for s, handler in handlers.items():
            signal.signal(s, handler)
        _forget_filesystems()
        if env:
            _stop_worker_pool()
    if code is None:
        code = 0
    elif not isinstance(code, int):  # SystemExit("message"): printed, status 1
        err.write(f"{code}\n")
        code = 1
    return subprocess.CompletedProcess(["objsub-fast", *argv], code, out.getvalue(),
                                       err.getvalue())
