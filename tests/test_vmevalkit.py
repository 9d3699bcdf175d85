"""create_dataset: VMEvalKit's structure, real files, determinism."""
import json
import tempfile
from pathlib import Path

from objsub_fast import create_dataset

from filetree import tree

PAIR_KEYS = {"id", "prompt", "first_image_path", "final_image_path", "task_category", "level",
             "object_subtraction_data", "difficulty", "created_at"}


def test_structure_and_files(tmp_path):
    ds = create_dataset(num_samples=7, levels=["L2", "L4"], random_seed=42,
                        output_dir=tmp_path / "a")
    assert {"name", "description", "pairs", "metadata"} <= set(ds)
    assert [p["level"] for p in ds["pairs"]] == ["L2"] * 4 + ["L4"] * 3
    for pair in ds["pairs"]:
        assert PAIR_KEYS <= set(pair) and pair["task_category"] == "ObjectSubtraction"
        for key in ("first_image_path", "final_image_path"):
            assert Path(pair[key]).is_file() and Path(pair[key]).parent.name == pair["id"]
        data = pair["object_subtraction_data"]
        assert data["num_removed"] == len(data["remove_object_ids"]) >= 1
    assert ds["metadata"]["total_tasks"] == 7


def test_same_arguments_give_identical_files(tmp_path, monkeypatch):
    create_dataset(num_samples=4, random_seed=1, output_dir=tmp_path / "a")
    create_dataset(num_samples=4, random_seed=1, output_dir=tmp_path / "b")
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # default output: a temp folder
    default = create_dataset(num_samples=2)
    assert Path(default["metadata"]["output_dir"]).parent == tmp_path
    assert Path(default["pairs"][0]["first_image_path"]).is_file()
    assert json.loads(Path(default["pairs"][0]["first_image_path"]).parent.joinpath(
        "question_metadata.json").read_text())["id"] == default["pairs"][0]["id"]
