"""Find (question, model output) pairs in VMEvalKit output folders or plain folders.

Layouts understood (first match wins):

1. VMEvalKit inference output::

       {outputs}/{model}/object_subtraction_task/{task_id}/{run_id}/video/*.mp4
       {outputs}/{model}/object_subtraction_task/{task_id}/{run_id}/question/question_metadata.json

   One job per run folder. With ``{questions}``, the task record is
   ``{questions}/[object_subtraction_task/]{task_id}/question_metadata.json`` (the answer key);
   the copy in ``question/`` beside the video is only compared with it (a difference is that
   run's error), and a run of a task id not in ``{questions}`` is *unknown*: listed, counted
   nowhere. Without ``{questions}`` the copy is the record (scoring one's own runs). Every
   question of ``{questions}`` (its Object Subtraction ones) without a run of a model gives a
   job without output for it.
2. VBVR-Bench (``vbvr``): model videos ``{outputs}/[{model}/]{split}/O-43_object_subtraction_
   data-generator/{index:05d}.mp4`` (several models under one base folder) with question folders
   ``{questions}/{split}/O-43_object_subtraction_data-generator/{index:05d}/``. Every question
   folder of ``{questions}`` without a video of a model gives a job without output for it.
3. Plain pairs: for every question folder ``{questions}/[...]/{task_id}/`` a model output named
   after the task id, ``{outputs}/{task_id}.{mp4,webm,gif,png,...}`` or a folder of frame
   images ``{outputs}/{task_id}/``; or the same one level down, ``{outputs}/{model}/...``, for
   several models. A question without an output gives a job whose error says so. A
   ``{task_id}/`` folder holding one video and no frame images is that video. The questions
   may be a WebDataset folder (``objsub-*.tar`` shards): each shard's ``{key}.json`` is a task
   record, its ``id`` the task id.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...runtime.jsonfile import loads as loads_json
from ...dataset.formats.vmevalkit import FINAL_FRAME, FIRST_FRAME, METADATA, PROMPT
from ...dataset.formats.vmevalkit import TASK_ROOT as TASK_DIR
from ...runtime.errors import UsageError
from ...runtime.links import links_in
from .limits import read_capped
from .names import model_label, printable
from .frames import IMAGE_EXTS, VIDEO_EXTS

__all__ = ["Job", "find_jobs", "question_index", "why_nothing_to_score", "copy_differences"]

QUESTION_FILES = (METADATA, FIRST_FRAME, PROMPT, FINAL_FRAME)


@dataclass
class Job:
    """One output to score.

    Attributes
    ----------
    model, task_id, run_id : str
    question : Path or None
        The question folder (holding ``question_metadata.json``), if found.
    output : Path or None
        Video file, frame folder or final image, if found.
    """

    model: str
    task_id: str
    run_id: str
    question: Path | None
    output: Path | None
    split_folder: str | None = None
    model_path: str | None = None
    question_source: str = "question_metadata.json"
    #: The run's own ``question/`` copy, compared with ``question`` (from ``--questions``).
    copy: Path | None = None
    #: A run of a task id that ``--questions`` does not hold: listed, counted nowhere.
    unknown: bool = False
    #: Why the output cannot be read safely (a link, a special file), found with the job.
    refused: str | None = None

    def load_record(self) -> dict:
        """Read the task record; raise ValueError with the reason when it cannot (or when the
        run's own copy of it differs)."""
        if self.question is None:
            raise ValueError(f"no question folder found for task {self.task_id}")
        if self.split_folder is not None:
            from .vbvr import load_question

            record, self.question_source = load_question(self.question)
            return record
        if isinstance(self.question, ShardRecord):
            self.question_source = self.question.member
            try:
                record = loads_json(self.question.read().decode())
            except (OSError, ValueError) as exc:
                raise ValueError(f"unreadable {self.question}: {exc}") from None
        else:
            record = _read_metadata(self.question)
        if self.copy is not None:
            differs = copy_differences(record, _read_metadata(self.copy, follow=False))
            if differs:
                raise ValueError("the question copy differs from the questions: "
                                 + ", ".join(differs))
        return record


def _read_metadata(folder: Path, follow: bool = True) -> dict:
    """The JSON object of ``folder/question_metadata.json`` (at most ``MAX_RECORD_BYTES``; a
    symbolic link is followed only with ``follow``)."""
    path = folder / METADATA
    if not path.is_file():
        raise ValueError(f"question folder without metadata: {folder}")
    try:
        record = loads_json(read_capped(path, follow=follow).decode())
    except (OSError, ValueError) as exc:  # too large, undecodable, malformed, nested too deeply
        raise ValueError(f"unreadable {path}: {exc}") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path} does not hold a task record")
    return record


def copy_differences(record: dict, copy: dict) -> list[str]:
    """The keys of the task ``record`` whose value a run's ``copy`` of it does not hold the
    same (keys only the copy has are ignored).

    Examples
    --------
    >>> copy_differences({"id": "a", "prompt": "p", "level": "L1"},
    ...                  {"id": "b", "prompt": "q", "level": "L1", "note": 1})
    ['id', 'prompt']
    """
    return [key for key in record if key not in copy or copy[key] != record[key]]


class ShardRecord:
    """A task record inside a WebDataset shard of the questions (its ``{key}.json`` member):
    where it is, read when the job is scored.

    Attributes
    ----------
    shard : Path
    member : str
        The member's name (``{key}.json``).
    offset, size : int
        Where its bytes lie in the shard.
    """

    parts = ()

    def __init__(self, shard: Path, member: str, offset: int, size: int):
        self.shard, self.member, self.offset, self.size = Path(shard), member, offset, size

    def __str__(self) -> str:
        return f"{self.shard}#{self.member}"

    def read(self) -> bytes:
        """The member's bytes (at most ``limits.MAX_RECORD_BYTES``)."""
        from .limits import MAX_RECORD_BYTES

        if self.size > MAX_RECORD_BYTES:
            raise ValueError(f"{self} is larger than {MAX_RECORD_BYTES:,} bytes")
        with open(self.shard, "rb") as fh:
            fh.seek(self.offset)
            return fh.read(self.size)


def _shard_index(root: Path) -> dict:
    """Task id -> :class:`ShardRecord` for every ``{key}.json`` member of the WebDataset shards
    (``objsub-*.tar``) under ``root``: the task ids are the records' own ``id``."""
    import tarfile

    index = {}
    for shard in sorted(root.rglob("objsub-*.tar")):
        try:
            with tarfile.open(shard, mode="r:") as tar:
                members = [m for m in tar if m.isreg() and m.name.endswith(".json")]
        except (tarfile.TarError, OSError):
            continue
        for m in members:
            record = ShardRecord(shard, m.name, m.offset_data, m.size)
            try:
                task_id = loads_json(record.read().decode()).get("id")
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(task_id, str) and task_id:
                index.setdefault(task_id, record)
    return index


def question_index(questions) -> dict:
    """Map task id -> question folder for every folder under ``questions`` that looks like one;
    for a WebDataset folder (no question folders, ``objsub-*.tar`` shards), task id -> its
    record in a shard (:class:`ShardRecord`)."""
    index = {}
    if questions is None:
        return index
    root = Path(questions)
    for name in QUESTION_FILES:
        for f in sorted(root.rglob(name)):
            index.setdefault(f.parent.name, f.parent)
    return index or _shard_index(root)


def _pick_output(folder: Path) -> Path | None:
    """The video (or image, or the folder of frames) in a run's ``video/`` folder."""
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.iterdir() if p.is_file())
    for exts in (VIDEO_EXTS, IMAGE_EXTS):
        for p in files:
            if p.suffix.lower() in exts:
                return p if exts is VIDEO_EXTS or len(files) == 1 else folder
    return files[0] if files else None


def _subtraction_questions(index: dict) -> dict:
    """The questions of ``index`` that are Object Subtraction tasks: those under a
    ``object_subtraction_task/`` folder when any is (a VMEvalKit questions tree holds other
    domains too), else all."""
    ours = {t: q for t, q in index.items() if TASK_DIR in q.parts}
    return ours or index


def _vmevalkit_jobs(outputs: Path, index: dict, answer_key: bool) -> list[Job]:
    jobs = []
    expected = _subtraction_questions(index)
    for task_root in sorted(outputs.rglob(TASK_DIR)):
        if not task_root.is_dir() or TASK_DIR in task_root.relative_to(outputs).parts[:-1]:
            continue
        rel = task_root.parent.relative_to(outputs)
        model = rel.as_posix() if rel.parts else outputs.name
        answered = set()
        for task_dir in sorted(p for p in task_root.iterdir() if p.is_dir()):
            for run in sorted(p for p in task_dir.iterdir() if p.is_dir()):
                if not (run / "video").exists() and not (run / "question").exists():
                    continue
                q = run / "question"
                copy = q if q.is_dir() else None
                output = _pick_output(run / "video")
                if not answer_key:
                    jobs.append(Job(model, task_dir.name, run.name, copy, output))
                elif task_dir.name in index:
                    jobs.append(Job(model, task_dir.name, run.name, index[task_dir.name],
                                    output, copy=copy))
                else:
                    jobs.append(Job(model, task_dir.name, run.name, None, output,
                                    unknown=True))
                answered.add(task_dir.name)
        # A question the model left without an output is a job too (an error record).
        jobs += [Job(model, task_id, "", question, None)
                 for task_id, question in sorted(expected.items()) if task_id not in answered]
    return jobs


def _vbvr_jobs(questions, outputs: Path) -> list[Job]:
    from .vbvr import TASK_NAME

    jobs = []
    models = {}
    for video in sorted(outputs.rglob(f"{TASK_NAME}/*.mp4")):
        rel = video.relative_to(outputs).parts
        if len(rel) < 3 or rel[-2] != TASK_NAME:
            continue
        split, parts = rel[-3], rel[:-3]
        model = "/".join(parts) if parts else outputs.name
        model_path = outputs.joinpath(*parts)
        models[model] = model_path
        folder = Path(questions) / split / TASK_NAME / video.stem if questions else None
        known = folder is not None and folder.is_dir()
        jobs.append(Job(model, video.stem, "", folder if known else None, video,
                        split_folder=split, model_path=str(model_path),
                        unknown=questions is not None and not known))
    if questions is None:
        return jobs
    # Every question of the tree counts for every model: one left out is an error record.
    answered = {(j.model, j.split_folder, j.task_id) for j in jobs}
    folders = sorted(p for p in Path(questions).glob(f"*/{TASK_NAME}/*") if p.is_dir())
    for model, model_path in sorted(models.items()):
        jobs += [Job(model, q.name, "", q, None, split_folder=q.parent.parent.name,
                     model_path=str(model_path))
                 for q in folders if (model, q.parent.parent.name, q.name) not in answered]
    return jobs


def _find_plain(folder: Path, task_id: str) -> Path | None:
    for ext in VIDEO_EXTS + IMAGE_EXTS:
        for cand in (folder / f"{task_id}{ext}", folder / f"{task_id}{ext.upper()}"):
            if cand.is_file():
                return cand
    d = folder / task_id
    if not d.is_dir() or (d / METADATA).exists():
        return None
    # A folder holding one video and no frame images is that video.
    files = [p for p in d.iterdir() if p.is_file()]
    videos = [p for p in files if p.suffix.lower() in VIDEO_EXTS]
    if len(videos) == 1 and not any(p.suffix.lower() in IMAGE_EXTS for p in files):
        return videos[0]
    return d


def _plain_jobs(outputs: Path, index: dict) -> list[Job]:
    models = [(outputs.name, outputs)]
    subdirs = [p for p in sorted(outputs.iterdir()) if p.is_dir() and p.name not in index]
    if subdirs and not any(_find_plain(outputs, t) for t in index):
        models = [(p.name, p) for p in subdirs]
    return [Job(model, task_id, "", question, _find_plain(folder, task_id))
            for model, folder in models for task_id, question in sorted(index.items())]


def find_jobs(questions, outputs) -> list[Job]:
    """Return every job found under ``outputs`` (see the module docstring for layouts).

    Raises
    ------
    FileNotFoundError
        When ``outputs`` (or a given ``questions``) is not a folder.
    UsageError
        When ``outputs`` is the questions folder, or ``questions`` holds no question folder.
    """
    outputs = Path(outputs)
    if not outputs.is_dir():
        raise FileNotFoundError(f"--outputs is not a folder: {outputs}")
    if questions is not None and not Path(questions).is_dir():
        raise FileNotFoundError(f"--questions is not a folder: {questions}")
    if questions is not None and outputs.resolve() == Path(questions).resolve():
        raise UsageError(f"--outputs is the questions folder ({outputs}); give the folder of "
                         "model outputs")
    index = question_index(questions)
    if questions is not None and not index:
        raise UsageError(f"--questions holds no question folder ({questions}): expected "
                         f"{{task_id}}/{METADATA}, VBVR-Bench's {{split}}/{{task}}/{{index}}/ "
                         "or WebDataset shards objsub-*.tar")
    jobs = _vbvr_jobs(questions, outputs)
    if not jobs:
        jobs = _vmevalkit_jobs(outputs, index, questions is not None)
    if not jobs and index:
        jobs = _plain_jobs(outputs, index)
    for job in jobs:
        job.model = model_label(job.model)
        job.refused = _unsafe(outputs, job.output)
    return jobs


def _unsafe(outputs: Path, output: Path | None) -> str | None:
    """Why ``output`` (under ``outputs``) must not be opened: a symbolic link on the way to it
    (it could name any file of the server, the answer key's videos among them) or a file that
    is not a regular one (a FIFO blocks a reader forever); None when it may be read."""
    if output is None:
        return None
    links = links_in(outputs, [output])
    if links:
        return f"{printable(links[0])} is a symbolic link: links are not followed"
    if not (output.is_file() or output.is_dir()):
        return f"{printable(output.name)} is not a regular file"
    return None


#: What ``find_jobs`` looks for under ``--outputs``, in the words of an error line.
OUTPUT_LAYOUTS = (f"VMEvalKit runs {{model}}/{TASK_DIR}/{{task_id}}/{{run_id}}/video/, "
                  "VBVR-Bench videos [{model}/]{split}/O-43_object_subtraction_data-generator/"
                  "{index:05d}.mp4, or {task_id}.mp4 / {task_id}/ frames")


def why_nothing_to_score(jobs, questions, outputs) -> str | None:
    """Why none of ``jobs`` can be scored, in one line that says what was looked for: no
    output found, or outputs none of which has its question. None when a job can be scored.

    Examples
    --------
    >>> why_nothing_to_score([Job("m", "00000", "", None, Path("00000.mp4"), "In-Domain_50")],
    ...                      None, "videos")  # doctest: +ELLIPSIS
    'found 1 VBVR-Bench video under videos but no question for it: give --questions, the ...'
    """
    from .vbvr import TASK_NAME

    found = [j for j in jobs if j.output is not None]
    if not found:
        asked = (f" for the {len({j.task_id for j in jobs})} questions under {questions}"
                 if questions is not None else "")
        return f"no outputs to score under {outputs}{asked}: looked for {OUTPUT_LAYOUTS}"
    if any(j.question is not None for j in found):
        return None
    them = "it" if len(found) == 1 else "any of them"
    if found[0].split_folder is not None:
        what = "VBVR-Bench video" + ("" if len(found) == 1 else "s")
        folders = f"{{split}}/{TASK_NAME}/{{index:05d}}/"
    else:
        what = "VMEvalKit run" + ("" if len(found) == 1 else "s") + " without a question/ copy"
        folders = f"[{TASK_DIR}/]{{task_id}}/{METADATA}"
    head = f"found {len(found)} {what} under {outputs}"
    if questions is None:
        return (f"{head} but no question for {them}: give --questions, the folder that holds "
                f"{folders}")
    return f"{head} but no question for {them} under {questions}: looked for {folders}"
