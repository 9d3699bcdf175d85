"""The Examples sections of the public modules run as written (``doctest``)."""
import doctest
import importlib

import pytest

MODULES = [
    "objsub_fast.runtime.errors", "objsub_fast.runtime._numba", "objsub_fast.dataset.run.preview", "objsub_fast.cli_common",
    "objsub_fast.runtime.progress", "objsub_fast.scoring.command", "objsub_fast.scoring.reporting.report",
    "objsub_fast.dataset.run.run_config", "objsub_fast.dataset.formats", "objsub_fast.dataset.content.manifest",
    "objsub_fast.runtime.parallel", "objsub_fast.dataset.content.plan", "objsub_fast.dataset.formats.tar",
    "objsub_fast.dataset.formats.webdataset", "objsub_fast.dataset.formats.vmevalkit", "objsub_fast.dataset.formats.vbvr_factory",
    "objsub_fast.dataset.run.stream", "objsub_fast.dataset.run.options", "objsub_fast.dataset.check.verify",
    "objsub_fast.dataset.run.create", "objsub_fast.task.record_json", "objsub_fast.dataset.formats.base",
    "objsub_fast.dataset.formats.folders",
    "objsub_fast.ground_truth.video", "objsub_fast.ground_truth.transitions", "objsub_fast.ground_truth.yuv",
    "objsub_fast.ground_truth.transition_video", "objsub_fast.ground_truth.transition_plan",
    "objsub_fast.ground_truth.object_look", "objsub_fast.ground_truth.spec",
    "objsub_fast.ground_truth.x264", "objsub_fast.ground_truth.objsub_encoder",
    "objsub_fast.ground_truth.model_output",
    "objsub_fast.ground_truth.h264.mp4", "objsub_fast.testing.browser",
    "objsub_fast.ground_truth.h264.bitstream", "objsub_fast.ground_truth.h264.params", "objsub_fast.ground_truth.h264.transform",
    "objsub_fast.ground_truth.h264.intra", "objsub_fast.ground_truth.h264.intra4", "objsub_fast.ground_truth.h264.inter",
    "objsub_fast.ground_truth.h264.motion",
    "objsub_fast.ground_truth.h264.cavlc", "objsub_fast.ground_truth.h264.mb_common", "objsub_fast.ground_truth.h264.encoder",
    "objsub_fast._moved", "objsub_fast.dataset.run.card", "objsub_fast.scoring.reporting.leaderboard",
    "objsub_fast.scoring.api", "objsub_fast.scoring.tracking.appearance", "objsub_fast.scoring.judging.votes",
    "objsub_fast.scoring.judging.colour_change", "objsub_fast.scoring.judging.final_match",
    "objsub_fast.scoring.judging.metrics", "objsub_fast.scoring.tracking.track", "objsub_fast.scoring.reading.frames",
    "objsub_fast.scoring.tracking.stored_tables",
]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no Examples to run"
    assert result.failed == 0
