"""The README's and the docs pages' snippets, commands and shown values, run as written.

Each snippet is taken from its page by its fenced block (or indented command), not copied here,
so a test fails when a page and the package drift apart; a value a snippet shows in a comment
(``batch.prompts[0]  # '...'``) is compared with what the code gives. Left out: the million-task
and Dask cluster commands (hours, a cluster), the scoring commands (``tests/test_scoring_*``),
and snippets that need torch where torch is not installed.
"""
import ast
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from inprocess import run_cli

ROOT = Path(__file__).resolve().parents[1]
#: Subprocesses import this checkout's package, whatever their working folder.
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
PAGES = {name: (ROOT / name).read_text() for name in (
    "README.md", "docs/generating.md", "docs/reading.md", "docs/vocabulary.md")}
README = PAGES["README.md"]
#: Modules a snippet may import that no extra of this package installs (said beside it).
USERS_OWN = {"torch"}


def _blocks(lang: str, page: str = "README.md") -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", PAGES[page], flags=re.S)


def _block_with(lang: str, text: str, page: str = "README.md") -> str:
    found = [b for b in _blocks(lang, page) if text in b]
    assert len(found) == 1, f"{page} has {len(found)} {lang} blocks with {text!r}"
    return found[0]


def _commands(block: str) -> list[list[str]]:
    """Commands of a shell block: comments dropped, continuation lines joined."""
    text = block.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _run(argv, cwd):
    """A page's command, run from ``cwd``: ``objsub-fast`` in this process (what the command
    does and prints is tested here; its console script by tests/test_cli.py), ``python`` as a
    subprocess."""
    if argv[0] == "objsub-fast":
        proc = run_cli(argv[1:], cwd=cwd)
    else:
        proc = subprocess.run([sys.executable, *argv[1:]], cwd=cwd, capture_output=True,
                              text=True, timeout=900, env=ENV)
    assert proc.returncode == 0, f"{argv}: {proc.stderr}"
    return proc


def _python(code: str, cwd, env=None):
    """Run a snippet (plus checks) as a script, with ``env`` added to its environment; a
    UserWarning (e.g. webdataset's about shardshuffle, torch's about read-only arrays) fails
    it."""
    proc = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", code], cwd=cwd,
                          capture_output=True, text=True, timeout=900, env={**ENV, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    return proc


def test_setup_command_generates_the_default_dataset(tmp_path):
    line = re.search(r"\n    pip install -e \. && (objsub-fast generate)\n", README)
    assert line, "the set-up command changed"
    proc = _run(shlex.split(line.group(1)), tmp_path)
    shards = sorted(p.name for p in (tmp_path / "objsub_dataset").glob("objsub-*.tar"))
    assert len(shards) == 8  # as the README says: 8 WebDataset shards
    assert proc.stdout.strip().endswith("objsub_dataset/objsub-{000000..000007}.tar")


# --------------------------------------------------------------------------- shown values

def _shown_values(block: str):
    """(expression, shown value text) of each line ``expr  # value`` whose value is a literal
    (a quoted string or a tuple, optionally followed by a dtype and words)."""
    for line in block.splitlines():
        m = re.match(r"^(\S.*?)\s+#\s+(['(].*)$", line)
        if m:
            try:
                ast.parse(m.group(1), mode="eval")
            except SyntaxError:
                continue
            yield m.group(1), m.group(2)


def _check_shown(namespace: dict, expression: str, shown: str) -> None:
    value = eval(expression, namespace)  # noqa: S307 (the page's own expression)
    if shown.startswith("'"):
        literal = re.match(r"'(?:[^'\\]|\\.)*'", shown).group(0)
        assert value == ast.literal_eval(literal), (expression, value)
        return
    literal, _, rest = shown.partition(")")
    assert value == ast.literal_eval(literal + ")"), (expression, value)
    dtype = rest.split(":")[0].split()[:1]
    if dtype and expression.endswith(".shape"):
        array = eval(expression[: -len(".shape")], namespace)  # noqa: S307
        assert str(array.dtype) == dtype[0], (expression, array.dtype)


@pytest.mark.parametrize("page, marker", [
    ("README.md", 'level="L3", canvas_size=256, masks=True'),
    ("docs/vocabulary.md", 'vocabulary="extended"'),
])
def test_every_value_a_library_snippet_shows_is_what_the_code_gives(page, marker):
    """Issue #20, defect 4: the README showed 'Remove the 2 leftmost objects.' for a prompt the
    code words otherwise."""
    block = _block_with("python", marker, page)
    namespace = {}
    exec(block, namespace)  # noqa: S102 (the page's own snippet)
    shown = list(_shown_values(block))
    assert len(shown) >= 1
    for expression, value in shown:
        _check_shown(namespace, expression, value)


def test_the_value_checker_catches_a_wrong_value():
    namespace = {"x": "Remove the 2 objects closest to the corners."}
    with pytest.raises(AssertionError):
        _check_shown(namespace, "x", "'Remove the 2 leftmost objects.'")


@pytest.mark.parametrize("page", list(PAGES))
def test_snippets_import_only_what_the_package_installs(page):
    """Issue #20: the VBVR snippet imported pandas, which no extra installs."""
    for block in _blocks("python", page):
        for node in ast.walk(ast.parse(block)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                assert top in USERS_OWN or importlib.util.find_spec(top), (page, name)


# --------------------------------------------------------------------------- generating, reading

def test_generate_verify_and_read_with_webdataset(tmp_path):
    commands = _commands(_block_with("bash", "objsub-fast generate --out data/objsub"))
    assert [c[:2] for c in commands] == [["objsub-fast", "generate"], ["objsub-fast", "verify"]]
    reference = _commands(_block_with("bash", "objsub-fast generate --out data/objsub",
                                      "docs/generating.md"))
    assert [c for c in reference if "1000000" not in c] == commands
    out = _run(commands[0], tmp_path).stdout
    printed = re.search(r"shards: (\S+)", out).group(1)
    _run(commands[1], tmp_path)
    loaders = {_block_with("python", "first, final, prompt, task = ", page)
               for page in ("README.md", "docs/reading.md")}
    for loader in loaders:  # each different snippet once (the pages show the same one today)
        assert f'"{printed}"' in loader  # the page's pattern is the printed one
        _python(loader + (
            "\nn = sum(1 for _ in ds)\n"
            "assert n == 1000, n\n"
            "assert first.shape == final.shape == (256, 256, 3) and prompt.startswith('Remove')\n"
            "assert task['task_index'] == 999\n"), tmp_path)


def test_pytorch_loader_with_two_workers(tmp_path):
    pytest.importorskip("torch", reason="torch is the user's own; not in the test extra")
    _run(["objsub-fast", "generate", "--out", "data/objsub"], tmp_path)
    code = _block_with("python", "DataLoader(ds", "docs/reading.md")
    _python(code + "\nassert sum(1 for _ in loader) == 1000\n", tmp_path)


def test_create_dataset_snippet(tmp_path):
    code = _block_with("python", "from objsub_fast import create_dataset")
    _python(code + "\nimport os\nassert os.path.isfile(dataset['pairs'][0]['first_image_path'])\n"
                   "assert len(dataset['pairs']) == 100\n", tmp_path)
    assert (tmp_path / "data" / "questions" / "vmeval_dataset.json").is_file()


def test_vbvr_commands_of_the_readme_and_the_index_snippet(tmp_path):
    readme = _commands(_block_with("bash", "--format vbvr-bench"))
    for command in readme:
        _run(command, tmp_path)
    assert sorted(p.name for p in (tmp_path / "data/VBVR-Bench/Out-of-Domain_50/"
                                   "O-43_object_subtraction_data-generator").iterdir()) == [
        f"{i:05d}" for i in range(8)]
    commands = _commands(_block_with("bash", "--format vbvr", "docs/reading.md"))
    assert commands[0] in readme  # the same dataset
    _run(commands[1], tmp_path)  # verify
    code = _block_with("python", "metadata.parquet", "docs/reading.md")
    _python(code + "\nassert video[4:8] == b'ftyp' and meta['task']['canvas_size'] == [1024, 1024]"
                   "\n", tmp_path)


def test_ground_truth_video_snippet(tmp_path):
    for command in _commands(_block_with("bash", "--videos", "docs/reading.md")):
        _run(command, tmp_path)
    code = _block_with("python", "import io, av", "docs/reading.md")
    _python(code + "\nassert len(frames) == 61 and frames[0].shape == (256, 256, 3)\n", tmp_path)


def test_tasks_back_from_their_records_snippet(tmp_path):
    for command in _commands(_block_with("bash", "--masks", "docs/reading.md")):
        _run(command, tmp_path)
    _python(_block_with("python", 'decode("l8"', "docs/reading.md"), tmp_path)


def test_dask_install_command_is_the_checkout_one():
    block = _block_with("bash", "dask scheduler", "docs/generating.md")
    assert 'pip install -e ".[dask]"' in block
    assert not any("objsub-fast[dask]" in text for text in PAGES.values())


def test_every_install_command_works_from_the_checkout():
    # the package is on no package index: `pip install "objsub-fast[s3]"` cannot work, in a
    # page or in a message of the package (the missing-backend error, the parquet note)
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
             *(ROOT / "objsub_fast").rglob("*.py")]
    texts = {str(p): p.read_text() for p in files}
    assert not [name for name, text in texts.items() if "objsub-fast[" in text]
    assert 'pip install -e ".[s3]"' in _block_with("bash", "s3://my-bucket", "README.md")


def test_vocabulary_commands_make_and_record_what_they_say(tmp_path):
    commands = _commands(_block_with("bash", "--vocabulary extended --shape-names flat",
                                     "docs/vocabulary.md"))
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


def test_the_readme_is_a_first_read_and_links_its_reference_pages():
    assert len(README.splitlines()) < 759 / 3 + 20
    for link in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / link).is_file(), link


def test_hugging_face_split_snippets(tmp_path):
    """docs/generating.md: a train and a test set made with --split, loaded with datasets,
    share no seed."""
    pytest.importorskip("datasets", reason="the [hf] extra")
    for argv in _commands(_block_with("bash", "--split test", "docs/generating.md")):
        _run(argv, tmp_path)
    cache = tmp_path / "hf-cache"  # the snippet's cache, not the user's
    _python(_block_with("python", "load_dataset", "docs/generating.md")
            + "\nassert train.num_rows == 40 and test.num_rows == 20\n", tmp_path,
            env={"HF_HOME": str(cache), "HF_DATASETS_CACHE": str(cache / "datasets"),
                 "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert sorted(p.name for p in (cache / "datasets").iterdir() if p.is_dir()) == [
        "hf-test", "hf-train"]
