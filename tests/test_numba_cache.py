"""The package's kernels are cached under a stamp of all its sources, so a kernel compiled
before a callee in another module changed is never reused (a stale callee writes other bytes
than a fresh machine)."""
import numba

from objsub_fast import _numba
from objsub_fast.yuv import convert_rects


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
    source = tmp_path / "outside.py"
    source.write_text("def f(x):\n    return x + 1\n")
    namespace = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    f = numba.njit(cache=True)(namespace["f"])
    assert f(1) == 2
    assert type(f._cache._impl._locator).__name__ != "PackageCacheLocator"
