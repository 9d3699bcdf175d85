"""The package's kernels are cached under a stamp of all its sources, so a kernel compiled
before a callee in another module changed is never reused (a stale callee writes other bytes
than a fresh machine)."""
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
    from objsub_fast.ground_truth.h264 import cavlc, inter, intra_mb, motion, residual, transform

    for fn in (intra_mb.code_intra, intra_mb.code_i16, intra_mb.code_chroma,
               residual.best_intra, residual.chroma_residual, cavlc.write_block,
               transform.transform_quant4x4, inter.predict_luma, motion.motion_search):
        assert fn.targetoptions["_nrt"] is False, fn.py_func.__name__
