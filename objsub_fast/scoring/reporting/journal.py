"""The journal of a ``score`` run: each output's record as it is scored, so that an interrupted
run resumes where it stopped.

``{out}.partial`` (beside ``--out``) holds a header naming the run (its questions, outputs,
limits and report folder) and then one line per scored output: the output's key and its record.
A rerun of the same command reads the records of the outputs already scored and scores only the
rest; the records are the same bytes as a fresh scoring would give (scoring is deterministic),
so the finished JSONL is the same as an uninterrupted run's. A journal of another run (another
header) is ignored and replaced. The journal is removed once the JSONL is written.

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.jsonl.partial"
>>> with ScoreJournal(path, {"outputs": "o"}) as journal:
...     journal.add(("m", "t1"), {"pass": True})
>>> ScoreJournal(path, {"outputs": "o"}).done
{('m', 't1'): {'pass': True}}
>>> ScoreJournal(path, {"outputs": "other"}).done
{}
"""
from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["ScoreJournal", "journal_path", "job_key"]

#: The header's key that marks a file as a score journal (and its layout's version).
MARK = "objsub_fast_score_journal"


def journal_path(out) -> Path:
    """Where the journal of a run writing ``out`` lives."""
    out = Path(out)
    return out.with_name(out.name + ".partial")


def job_key(job) -> tuple:
    """What tells one job of a run from every other: model, split, task folder, run, output."""
    return (job.model, job.split_folder or "", job.task_id, job.run_id,
            str(job.output) if job.output is not None else "")


class ScoreJournal:
    """The records already scored by a run of ``header`` (:attr:`done`), and the file new ones
    are appended to (:meth:`add`, once entered as a context).

    Parameters
    ----------
    path : Path
    header : dict
        What names the run: a journal with another header is not this run's.
    """

    def __init__(self, path, header: dict):
        self.path = Path(path)
        self.header = {MARK: 1, **header}
        self.done = self._read()
        self._fh = None

    def _read(self) -> dict:
        try:
            with open(self.path, "rb") as fh:
                lines = fh.read().splitlines()
        except OSError:
            return {}
        done = {}
        try:
            if not lines or json.loads(lines[0]) != self.header:
                return {}
        except ValueError:
            return {}
        for line in lines[1:]:
            try:
                key, record = json.loads(line)
            except (ValueError, TypeError):   # the line a kill cut short
                break
            done[tuple(key)] = record
        return done

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keep = bool(self.done)
        self._fh = open(self.path, "ab" if keep else "wb")
        if not keep:
            self._write(self.header)
        else:   # drop a line a kill cut short: rewrite the journal from what was read
            self._fh.close()
            self._fh = open(self.path, "wb")
            self._write(self.header)
            for key, record in self.done.items():
                self._write([list(key), record])
        return self

    def _write(self, value) -> None:
        self._fh.write((json.dumps(value, sort_keys=True) + "\n").encode())
        self._fh.flush()

    def add(self, key: tuple, record: dict) -> None:
        """Journal the ``record`` of the job ``key``."""
        self._write([list(key), record])

    def __exit__(self, *exc):
        self._fh.close()
        return False

    def remove(self) -> None:
        """Remove the journal (the run's JSONL is written)."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
