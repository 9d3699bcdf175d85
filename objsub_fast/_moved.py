"""Old module paths of the package: before its modules were grouped into parts (issue #31), and
the modules moved since (issues #37, #45, #48).

``objsub_fast.video``, ``objsub_fast.h264.encoder``, ``objsub_fast.config`` ... still import:
:data:`MOVED` maps each old name to its new one, and :class:`MovedFinder` (first on
``sys.meta_path``, installed by the package's ``__init__``) answers an old name with the very
module object of the new one. There is never a second copy of a module, so ``isinstance``,
``pickle`` (pickles name their classes by module path: configurations pickled before the move
load) and ``monkeypatch.setattr("objsub_fast.video.x", ...)`` act on the one module.

The first import of an old name in a process warns (``DeprecationWarning``, naming the new
path and :data:`REMOVED_IN`, attributed to the line that imported it): the old paths keep
working through the 0.2 releases and are gone in 0.3.0.

Examples
--------
>>> import sys, warnings
>>> _ = sys.modules.pop("objsub_fast.video", None)  # as if this process had not imported it
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     import objsub_fast.video, objsub_fast.ground_truth.video
>>> objsub_fast.video is objsub_fast.ground_truth.video
True
>>> print(caught[0].message)
objsub_fast.video is deprecated and goes in objsub-fast 0.3.0: import objsub_fast.ground_truth.video
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "REMOVED_IN", "new_name", "MovedFinder", "install", "renamed"]

#: The release that no longer answers the old paths of :data:`MOVED`.
REMOVED_IN = "0.3.0"

#: Old module (or package, with everything in it) -> where it is now.
MOVED = {
    # scoring/ arranged by stage: reading, tracking, judging, reporting (issue #45)
    "objsub_fast.scoring.video": "objsub_fast.scoring.reading.frames",
    "objsub_fast.scoring.bars": "objsub_fast.scoring.reading.bars",
    "objsub_fast.scoring.register": "objsub_fast.scoring.reading.register",
    "objsub_fast.scoring.layout": "objsub_fast.scoring.reading.layout",
    "objsub_fast.scoring.recover": "objsub_fast.scoring.reading.recover",
    "objsub_fast.scoring.looks": "objsub_fast.scoring.reading.looks",
    "objsub_fast.scoring.question": "objsub_fast.scoring.reading.question",
    "objsub_fast.scoring.names": "objsub_fast.scoring.reading.names",
    "objsub_fast.scoring.limits": "objsub_fast.scoring.reading.limits",
    "objsub_fast.scoring.vbvr": "objsub_fast.scoring.reading.vbvr",
    "objsub_fast.scoring.detect": "objsub_fast.scoring.tracking.detect",
    "objsub_fast.scoring.camera": "objsub_fast.scoring.tracking.camera",
    "objsub_fast.scoring.track": "objsub_fast.scoring.tracking.track",
    "objsub_fast.scoring.footprint": "objsub_fast.scoring.tracking.footprint",
    "objsub_fast.scoring.silhouette": "objsub_fast.scoring.tracking.silhouette",
    "objsub_fast.scoring.accounting": "objsub_fast.scoring.tracking.accounting",
    "objsub_fast.scoring.appearance": "objsub_fast.scoring.tracking.appearance",
    "objsub_fast.scoring.model": "objsub_fast.scoring.tracking.model",
    "objsub_fast.scoring.expected": "objsub_fast.scoring.judging.expected",
    "objsub_fast.scoring.residual": "objsub_fast.scoring.judging.residual",
    "objsub_fast.scoring.invariants": "objsub_fast.scoring.judging.invariants",
    "objsub_fast.scoring.thresholds": "objsub_fast.scoring.judging.thresholds",
    "objsub_fast.scoring.metrics": "objsub_fast.scoring.judging.metrics",
    "objsub_fast.scoring.stability": "objsub_fast.scoring.judging.stability",
    "objsub_fast.scoring.colour_change": "objsub_fast.scoring.judging.colour_change",
    "objsub_fast.scoring.continuity": "objsub_fast.scoring.judging.continuity",
    "objsub_fast.scoring.removal": "objsub_fast.scoring.judging.removal",
    "objsub_fast.scoring.final_match": "objsub_fast.scoring.judging.final_match",
    "objsub_fast.scoring.votes": "objsub_fast.scoring.judging.votes",
    "objsub_fast.scoring.continuous": "objsub_fast.scoring.judging.continuous",
    "objsub_fast.scoring.report": "objsub_fast.scoring.reporting.report",
    "objsub_fast.scoring.leaderboard": "objsub_fast.scoring.reporting.leaderboard",
    "objsub_fast.scoring.summary": "objsub_fast.scoring.reporting.summary",
    "objsub_fast.scoring.journal": "objsub_fast.scoring.reporting.journal",
    # the known-answer fixtures left the parts for objsub_fast.testing (issue #37)
    "objsub_fast.scoring.controls": "objsub_fast.testing.controls",
    "objsub_fast.scoring.outputs": "objsub_fast.testing.outputs",
    "objsub_fast.ground_truth.h264.openh264": "objsub_fast.testing.openh264",
    "objsub_fast.ground_truth.h264.browser": "objsub_fast.testing.browser",
    "objsub_fast.errors": "objsub_fast.runtime.errors",
    "objsub_fast.atomic": "objsub_fast.runtime.atomic",
    "objsub_fast.lock": "objsub_fast.runtime.lock",
    "objsub_fast.scheduler": "objsub_fast.runtime.scheduler",
    "objsub_fast._numba": "objsub_fast.runtime._numba",
    "objsub_fast.dataset.crashpoint": "objsub_fast.runtime.crashpoint",
    "objsub_fast.vocabulary": "objsub_fast.task.vocabulary",
    "objsub_fast.config": "objsub_fast.task.config",
    "objsub_fast.rng": "objsub_fast.task.rng",
    "objsub_fast.units": "objsub_fast.task.units",
    "objsub_fast.scenes": "objsub_fast.task.scenes",
    "objsub_fast.scene_pixels": "objsub_fast.task.scene_pixels",
    "objsub_fast.interpret": "objsub_fast.task.interpret",
    "objsub_fast.records": "objsub_fast.task.records",
    "objsub_fast.render": "objsub_fast.draw.render",
    "objsub_fast.solids": "objsub_fast.draw.solids",
    "objsub_fast.png": "objsub_fast.draw.png",
    "objsub_fast.deflate": "objsub_fast.draw.deflate",
    "objsub_fast.transitions": "objsub_fast.ground_truth.transitions",
    "objsub_fast.transition_video": "objsub_fast.ground_truth.transition_video",
    "objsub_fast.yuv": "objsub_fast.ground_truth.yuv",
    "objsub_fast.video": "objsub_fast.ground_truth.video",
    "objsub_fast.h264": "objsub_fast.ground_truth.h264",
    "objsub_fast.shards": "objsub_fast.dataset.content.shards",
    "objsub_fast.pipeline": "objsub_fast.dataset.run.pipeline",
    "objsub_fast.verify": "objsub_fast.dataset.check.verify",
    "objsub_fast.preview": "objsub_fast.dataset.run.preview",
    "objsub_fast.storage.target": "objsub_fast.dataset.run.target",
    "objsub_fast.storage.jobs": "objsub_fast.dataset.run.store_jobs",
    "objsub_fast.storage.mirror": "objsub_fast.dataset.run.mirror",
    # run infrastructure left dataset/ for runtime/ (issue #48)
    "objsub_fast.dataset.parallel": "objsub_fast.runtime.parallel",
    "objsub_fast.dataset.progress": "objsub_fast.runtime.progress",
    # one module base name per job: the run's configuration is not task/config.py (issue #48)
    # ... nor scoring/vbvr.py (VBVR-Bench's reader), nor scoring/residual.py
    "objsub_fast.dataset.config": "objsub_fast.dataset.run.run_config",
    "objsub_fast.dataset.vbvr": "objsub_fast.dataset.formats.vbvr_factory",
    "objsub_fast.ground_truth.h264.residual": "objsub_fast.ground_truth.h264.mb_common",
    # dataset/ arranged by job: the formats, the content every format shares, the run, the
    # checks (issue #48)
    "objsub_fast.dataset.shards": "objsub_fast.dataset.content.shards",
    "objsub_fast.dataset.plan": "objsub_fast.dataset.content.plan",
    "objsub_fast.dataset.members": "objsub_fast.dataset.content.members",
    "objsub_fast.dataset.manifest": "objsub_fast.dataset.content.manifest",
    "objsub_fast.dataset.tar": "objsub_fast.dataset.formats.tar",
    "objsub_fast.dataset.folders": "objsub_fast.dataset.formats.folders",
    "objsub_fast.dataset.webdataset": "objsub_fast.dataset.formats.webdataset",
    "objsub_fast.dataset.vbvr_factory": "objsub_fast.dataset.formats.vbvr_factory",
    "objsub_fast.dataset.vbvr_bench": "objsub_fast.dataset.formats.vbvr_bench",
    "objsub_fast.dataset.vmevalkit": "objsub_fast.dataset.formats.vmevalkit",
    "objsub_fast.dataset.vmeval_file": "objsub_fast.dataset.formats.vmevalkit.dataset_file",
    "objsub_fast.dataset.vmevalkit_check": "objsub_fast.dataset.formats.vmevalkit.dataset_check",
    "objsub_fast.dataset.run_config": "objsub_fast.dataset.run.run_config",
    "objsub_fast.dataset.options": "objsub_fast.dataset.run.options",
    "objsub_fast.dataset.card": "objsub_fast.dataset.run.card",
    "objsub_fast.dataset.output": "objsub_fast.dataset.run.output",
    "objsub_fast.dataset.sample": "objsub_fast.dataset.run.sample",
    "objsub_fast.dataset.pipeline": "objsub_fast.dataset.run.pipeline",
    "objsub_fast.dataset.stream": "objsub_fast.dataset.run.stream",
    "objsub_fast.dataset.create": "objsub_fast.dataset.run.create",
    "objsub_fast.dataset.preview": "objsub_fast.dataset.run.preview",
    "objsub_fast.dataset.target": "objsub_fast.dataset.run.target",
    "objsub_fast.dataset.mirror": "objsub_fast.dataset.run.mirror",
    "objsub_fast.dataset.store_jobs": "objsub_fast.dataset.run.store_jobs",
    "objsub_fast.dataset.verify": "objsub_fast.dataset.check.verify",
    "objsub_fast.dataset.strays": "objsub_fast.dataset.check.strays",
}


def new_name(name: str) -> str | None:
    """Where the old module ``name`` is now (None when it did not move).

    Examples
    --------
    >>> new_name("objsub_fast.h264.mp4"), new_name("objsub_fast.dataset.formats")
    ('objsub_fast.ground_truth.h264.mp4', None)
    """
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


def _importer_depth() -> int:
    """The ``stacklevel`` of the frame that imported an old name: the first caller of
    :func:`_warn` outside this module and the import machinery."""
    frame, depth = sys._getframe(1), 1
    while frame is not None and (frame.f_code.co_filename == __file__
                                 or frame.f_code.co_filename.startswith("<frozen importlib")
                                 or frame.f_globals.get("__name__") == "importlib"):
        frame, depth = frame.f_back, depth + 1
    return depth


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated and goes in objsub-fast {REMOVED_IN}: import {new}",
                  DeprecationWarning, stacklevel=_importer_depth())


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module of its new name (the same object), with a warning."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def create_module(self, spec):
        _warn(self.old, self.new)
        module = importlib.import_module(self.new)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._own_spec  # the import system set the old name's spec on it


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds old module names (:data:`MOVED`) and answers with their new modules."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(fullname, new))


def install() -> None:
    """Put one :class:`MovedFinder` first on ``sys.meta_path`` (again: nothing happens)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())


def renamed(module: str, names: dict):
    """A module-level ``__getattr__`` for ``module`` that answers the old ``names`` (old name ->
    the new object's full dotted path) with the new objects, warning once per name like an old
    module path (issue #48: one name per job, e.g. ``transitions.Look`` is ``ObjectLook``).

    Examples
    --------
    >>> import warnings
    >>> from objsub_fast.ground_truth import transitions
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     transitions.Look is transitions.ObjectLook
    True
    >>> print(caught[0].message)
    objsub_fast.ground_truth.transitions.Look is deprecated and goes in objsub-fast 0.3.0: use objsub_fast.ground_truth.transitions.ObjectLook
    """
    def __getattr__(name):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, _, attr = names[name].rpartition(".")
        warnings.warn(f"{module}.{name} is deprecated and goes in objsub-fast {REMOVED_IN}: "
                      f"use {names[name]}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(where), attr)

    return __getattr__
