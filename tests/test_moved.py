"""Issue #31: the old module paths (before the modules were grouped into parts) keep working:
an old name imports the very module of its new one, and a pickle that names old paths loads.
Issue #48: the first import of an old name warns (DeprecationWarning) with its new path."""
import importlib
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import objsub_fast
from objsub_fast._moved import MOVED, REMOVED_IN, MovedFinder, new_name

#: Every test here imports old names on purpose; the warning itself is tested below.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).parent / "data"
PACKAGE = Path(objsub_fast.__file__).parent

#: Made by objsub-fast before the move (``pickle.dumps(..., protocol=4)``): a generator
#: ``Config`` (with its ``Vocabulary``), a ``Shard``, a ``VideoSpec``, a ``RunConfig`` and a
#: ``ParameterError``, named by their old module paths.
PICKLE = DATA / "pickled-before-31.pkl"


def _file(name: str) -> Path:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path if path.is_dir() else path.with_suffix(".py")


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_is_the_new_module(old):
    assert not _file(old).exists() and _file(MOVED[old]).exists()
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__name__ == module.__spec__.name == MOVED[old]  # its own spec kept


@pytest.mark.filterwarnings("default")
@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_name_warns_once_naming_its_new_path(old):
    for name in [n for n in sys.modules if n == old or n.startswith(old + ".")]:
        del sys.modules[name]  # the alias entry only: the module stays under its new name
    with pytest.warns(DeprecationWarning) as caught:
        importlib.import_module(old)
    assert [str(w.message) for w in caught] == [
        f"{old} is deprecated and goes in objsub-fast {REMOVED_IN}: import {MOVED[old]}"]
    assert caught[0].filename != objsub_fast._moved.__file__  # the importer's line, not ours
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module(old)  # imported already: no second warning


def test_the_package_itself_imports_no_old_name():
    code = ("import warnings; warnings.simplefilter('error', DeprecationWarning); "
            "import objsub_fast.cli, objsub_fast.dataset.run.pipeline, objsub_fast.dataset.check.verify, "
            "objsub_fast.scoring.command, objsub_fast.testing.controls")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_old_names_inside_a_moved_package_and_from_imports():
    from objsub_fast.h264 import encoder
    import objsub_fast.h264.mp4 as mp4

    assert encoder is importlib.import_module("objsub_fast.ground_truth.h264.encoder")
    assert mp4.__name__ == new_name("objsub_fast.h264.mp4") == "objsub_fast.ground_truth.h264.mp4"


def test_there_is_never_a_second_copy_of_a_module():
    for old in MOVED:
        importlib.import_module(old)
    files = [m.__file__ for m in list(sys.modules.values())
             if getattr(m, "__name__", "").startswith("objsub_fast") and getattr(m, "__file__", None)]
    seen = {}
    for name, m in list(sys.modules.items()):
        if name.startswith("objsub_fast") and getattr(m, "__file__", None):
            assert seen.setdefault(m.__file__, m) is m, name
    assert len(files) >= len(seen)
    assert sum(isinstance(f, MovedFinder) for f in sys.meta_path) == 1


def test_the_public_api_imports_from_the_top():
    from objsub_fast import (create_dataset, generate_batch, iter_samples,  # noqa: F401
                             render_transition, score_video, write_transition)

    assert write_transition.__module__ == "objsub_fast.ground_truth.video"


def test_a_pickle_made_before_the_move_loads_in_a_new_process():
    """A fresh interpreter (nothing imported yet) unpickles the old paths; the classes are
    those of the new modules."""
    code = ("import pickle, sys; objs = pickle.loads(open(sys.argv[1], 'rb').read()); "
            "print(' '.join(f'{k}={type(v).__module__}' for k, v in sorted(objs.items())))")
    out = subprocess.run([sys.executable, "-c", code, str(PICKLE)], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["config=objsub_fast.task.config", "error=objsub_fast.runtime.errors",
                   "run=objsub_fast.dataset.run.run_config", "shard=objsub_fast.dataset.content.shards",
                   "video=objsub_fast.ground_truth.spec"]


def test_a_pickle_made_before_the_move_loads_equal_objects():
    from objsub_fast import generate_batch

    objs = pickle.loads(PICKLE.read_bytes())
    config = generate_batch([1, 2], render=False).config
    assert type(objs["config"]) is type(config)
    assert objs["config"].vocabulary == config.vocabulary and objs["config"].lengths == config.lengths
    assert (objs["shard"].index, objs["shard"].count) == (1, 2)
    assert objs["video"].settings()["num_frames"] == 61
    assert objs["run"].count == 5 and objs["run"].seed == 7
    assert isinstance(objs["error"], ValueError) and "--count" in str(objs["error"])


@pytest.mark.filterwarnings("default")
def test_a_renamed_name_warns_and_is_the_new_object():
    """Issue #48: one name per job; the old names answer for one more minor version."""
    from objsub_fast.ground_truth import transitions, video

    for module, old, new in ((transitions, "Look", "ObjectLook"),
                             (video, "check_canvas", "check_even_canvas")):
        with pytest.warns(DeprecationWarning, match=f"{module.__name__}.{new}"):
            assert getattr(module, old) is getattr(module, new)
    with pytest.raises(AttributeError):
        transitions.no_such_name
