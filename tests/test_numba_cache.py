"""The package's kernels are cached under a stamp of all its sources, so a kernel compiled
before a callee in another module changed is never reused (a stale callee writes other bytes
than a fresh machine)."""
import subprocess
import sys

import numba
import numpy as np
import pytest

from objsub_fast.ground_truth.yuv import convert_rects
from objsub_fast.runtime import _numba


def test_package_kernels_are_stamped_with_the_whole_package():
    locator = convert_rects._cache._impl._locator
    assert type(locator).__name__ == "PackageCacheLocator"
    assert locator.get_source_stamp() == _numba.package_stamp()


def test_the_stamp_changes_with_any_module(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    monkeypatch.setattr(_numba, "PACKAGE", tmp_path)
    _numba.package_stamp.cache_clear()
    try:
        before = _numba.package_stamp()
        (tmp_path / "sub" / "b.py").write_text("y = 3\n")
        _numba.package_stamp.cache_clear()
        assert _numba.package_stamp() != before
    finally:
        _numba.package_stamp.cache_clear()


def test_functions_outside_the_package_keep_numbas_own_locator(tmp_path):
    namespace = _outside_module(tmp_path, "outside", "def f(x):\n    return x + 1\n")
    f = numba.njit(cache=True)(namespace["f"])
    assert f(1) == 2
    assert type(f._cache._impl._locator).__name__ != "PackageCacheLocator"



#: A kernel that passes array views to a callee that may raise: with Numba's runtime, the
#: views' reference counts are kept (its pruning pass does not remove them here).
_VIEWS_SOURCE = """
from objsub_fast.runtime._numba import {decorator} as deco


@deco
def first_of(row):
    if row[0] < 0:
        raise ValueError("negative")
    return row[0]


@deco
def first_column_sum(a):
    s = 0
    for r in range(a.shape[0]):
        s += first_of(a[r])
    return s
"""


def _outside_module(tmp_path, name, source):
    """The namespace of ``source`` written to a file outside the package (so Numba's own
    cache locator)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def test_noalloc_kernels_carry_no_reference_counting(tmp_path):
    a = np.arange(12, dtype=np.int64).reshape(4, 3)
    irs = {}
    for decorator in ("kernel", "noalloc_kernel"):
        fn = _outside_module(tmp_path, decorator, _VIEWS_SOURCE.format(decorator=decorator))[
            "first_column_sum"]
        assert fn(a) == 0 + 3 + 6 + 9
        irs[decorator] = next(iter(fn.inspect_llvm().values()))
    assert "NRT_incref" in irs["kernel"]     # the same code with the runtime counts its views
    assert "NRT_incref" not in irs["noalloc_kernel"]


def test_a_noalloc_kernel_that_allocates_does_not_compile(tmp_path):
    source = ("import numpy as np\nfrom objsub_fast.runtime._numba import noalloc_kernel\n\n\n"
              "@noalloc_kernel\ndef allocating(n):\n    return np.zeros(n).sum()\n")
    allocating = _outside_module(tmp_path, "allocating", source)["allocating"]
    with pytest.raises(Exception, match="NRT required|Only accept returning of array passed"):
        allocating(3)


def test_the_encoders_macroblock_kernels_are_noalloc():
    from objsub_fast.ground_truth.h264 import cavlc, inter, intra_mb, mb_common, motion, transform

    for fn in (intra_mb.code_intra, intra_mb.code_i16, intra_mb.code_chroma,
               mb_common.best_intra, mb_common.chroma_residual, cavlc.write_block,
               transform.transform_quant4x4, inter.predict_luma, motion.motion_search):
        assert fn.targetoptions["_nrt"] is False, fn.py_func.__name__


#: A child process: generate and encode (the scene, sprite, PNG, YUV and H.264 kernels, from
#: every part), counting Numba compiles (``numba:compile`` events fire on cache misses only);
#: prints the count and whether every kernel it loaded is served by the package's locator.
_CHILD = """
import sys
import numba
import numba.core.event as ev
from objsub_fast import generate_batch, write_transition

with ev.install_recorder("numba:compile") as rec:
    batch = generate_batch([5, 6], level="L2")
    write_transition(batch, 0, sys.argv[1], num_frames=6)
compiles = sum(1 for _, e in rec.buffer if e.is_start)
kernels = [v for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith(
    "objsub_fast.") for v in vars(m).values()
    if isinstance(v, numba.core.registry.CPUDispatcher) and v._cache._impl is not None]
ours = {type(k._cache._impl._locator).__name__ for k in kernels}
print(compiles, len(kernels), sorted(ours))
"""


def test_a_second_run_compiles_nothing(tmp_path):
    """The on-disk cache serves every kernel of every part of the package, wherever its
    module sits (issue #31 moved them into subpackages): a second process compiles nothing."""
    runs = []
    for i in range(2):
        out = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path / f"{i}.mp4")],
                             capture_output=True, text=True, check=True).stdout.split(maxsplit=2)
        runs.append((int(out[0]), int(out[1]), out[2].strip()))
    (_, kernels, locators), (second_compiles, _, _) = runs
    assert kernels >= 10 and locators == "['PackageCacheLocator']"
    assert second_compiles == 0
