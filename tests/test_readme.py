"""The README's snippets about generating a dataset and reading it, run as written.

Each snippet is taken from README.md by its fenced block (or indented command), not copied
here, so the test fails when the README and the package drift apart. Left out: the million-task
and Dask cluster commands (hours, a cluster), and the sections on scoring and videos.
"""
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def _block_with(lang: str, text: str) -> str:
    found = [b for b in _blocks(lang) if text in b]
    assert len(found) == 1, f"README has {len(found)} {lang} blocks with {text!r}"
    return found[0]


def _commands(block: str) -> list[list[str]]:
    """Commands of a shell block: comments dropped, continuation lines joined."""
    text = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _run(argv, cwd):
    exe = {"objsub-fast": [sys.executable, "-m", "objsub_fast.cli"],
           "python": [sys.executable]}[argv[0]]
    proc = subprocess.run(exe + argv[1:], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{argv}: {proc.stderr}"
    return proc


def test_setup_command_generates_the_default_dataset(tmp_path):
    line = re.search(r"\n    pip install -e \. && (objsub-fast generate)\n", README)
    assert line, "the set-up command changed"
    proc = _run(shlex.split(line.group(1)), tmp_path)
    shards = sorted(p.name for p in (tmp_path / "objsub_dataset").glob("objsub-*.tar"))
    assert len(shards) == 8  # as the README says: 8 WebDataset shards
    assert proc.stdout.strip().endswith("objsub_dataset/objsub-{000000..000007}.tar")


def test_generate_verify_and_read_with_webdataset(tmp_path):
    commands = _commands(_block_with("bash", "objsub-fast generate --out data/objsub"))
    runnable = [c for c in commands if "1000000" not in c]  # the million-task line: too long
    assert [c[:2] for c in runnable] == [["objsub-fast", "generate"], ["objsub-fast", "verify"]]
    out = _run(runnable[0], tmp_path).stdout
    printed = re.search(r"shards: (\S+)", out).group(1)
    _run(runnable[1], tmp_path)
    loader = _block_with("python", "import webdataset as wds")
    assert f'"{printed}"' in loader  # the README's pattern is the printed one
    check = loader + (
        "\nimport sys\nn = sum(1 for _ in ds)\n"
        "assert n == 1000, n\n"
        "assert first.shape == final.shape == (256, 256, 3) and prompt.startswith('Remove')\n"
        "assert task['task_index'] == 999\n")
    proc = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def test_pytorch_loader_with_two_workers(tmp_path):
    pytest.importorskip("torch")
    _run(["objsub-fast", "generate", "--out", "data/objsub"], tmp_path)
    code = (_block_with("python", "import webdataset as wds").split("for s in ds")[0]
            + _block_with("python", "DataLoader") + "\nassert sum(1 for _ in loader) == 1000\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def test_create_dataset_snippet(tmp_path):
    code = _block_with("python", "from objsub_fast import create_dataset")
    code += ("\nimport os\nassert os.path.isfile(dataset['pairs'][0]['first_image_path'])\n"
             "assert len(dataset['pairs']) == 100\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "data" / "questions" / "vmeval_dataset.json").is_file()


def test_dask_install_command_is_the_checkout_one():
    block = _block_with("bash", "dask scheduler")
    assert 'pip install -e ".[dask]"' in block and "objsub-fast[dask]" not in README


def test_vocabulary_commands_make_and_record_what_they_say(tmp_path):
    commands = _commands(_block_with("bash", "--vocabulary extended --shape-names flat"))
    assert [c[:2] for c in commands] == [["objsub-fast", "generate"]] * 2 + [
        ["objsub-fast", "preview"]]
    for command in commands:
        _run(command, tmp_path)
    config = json.loads((tmp_path / "data/extended/manifest.json").read_text())["config"]
    assert (config["vocabulary"], config["shape_names"], config["prompt_variants"],
            config["generator_version"]) == ("extended", "flat", 4, "0.3.0")
    picked = json.loads((tmp_path / "data/picked/manifest.json").read_text())["config"]
    assert picked["colors"] == ["red", "cyan", "brown"]
    assert (tmp_path / "extended.png").is_file()
