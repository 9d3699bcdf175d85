"""The ``objsub-fast`` command line: ``generate``, ``verify``, ``preview`` and ``score``.

Exit status: 0 done; 1 ``verify`` found problems, or the system failed us (disk full,
permission denied, ...: one line naming the error and the path); 2 a usage error
(``objsub_fast.runtime.errors.UsageError``: one line naming the option and its allowed range); 130
interrupted (Ctrl-C), 143 terminated (SIGTERM; both say how to resume a ``generate`` run).
Anything else is a bug and shows its traceback.

``--workers`` (``-j``) means the same in every subcommand: parallel worker processes, all cores
by default, otherwise an integer >= 1, never more than there are jobs (shards or videos). Every
subcommand takes ``--quiet`` (``--no-progress``), starts its error lines with the same prefix
and gives the range of every numeric option in its help (``objsub_fast.cli_common``); run bare,
``objsub-fast`` prints its usage and commands (exit status 2).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .cli_common import PROG, add_quiet, add_workers, counted, error_line
from .runtime.errors import UsageError

__all__ = ["PROG", "build_parser", "main", "program", "run_config"]

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143
#: A file-system error (not the user's input, not a bug).
EXIT_FAILED = 1


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line (no usage block): see ``--help`` for usage."""

    def error(self, message):
        _fail(message)


def _fail(message: str, status: int = EXIT_USAGE) -> None:
    print(error_line(message), file=sys.stderr)
    raise SystemExit(status)


def _levels(text: str) -> tuple:
    parts = tuple(part.strip() for part in text.split(","))
    if not all(parts):
        raise argparse.ArgumentTypeError(
            f"expected comma-separated levels such as L1,L3, got {text!r} (an empty item)")
    return parts


def _out_path(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder path, got an empty string")
    return text


def _canvas(text: str) -> tuple:
    try:
        parts = [int(p) for p in text.lower().split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected W or WxH, got {text!r}") from None
    if len(parts) not in (1, 2):
        raise argparse.ArgumentTypeError(f"expected W or WxH, got {text!r}")
    return (parts[0], parts[-1])


# --------------------------------------------------------------------------- engine knobs

def _add_knobs(p) -> None:
    """The engine's knobs (``RunConfig.engine_options``), as options of ``p``; read back by
    ``_knobs``. Values stay strings here so that a bad one gets the parse helper's message."""
    from .task.config import MAX_OBJECTS, MIN_OBJECTS
    from .task.vocabulary import COLOR_TABLE, LOOKS, PRESETS, SHAPE_NAMINGS, SHAPE_TABLE, WORDINGS

    p.add_argument("--num-objects", metavar="MIN-MAX",
                   help=f"objects per scene, e.g. 5-8 or 7, in [{min(MIN_OBJECTS.values())}, "
                   f"{MAX_OBJECTS}] (at least {MIN_OBJECTS['L4']} for L4, {MIN_OBJECTS['L2']} "
                   "for L2; at most what fits the canvas) (default: 5-8, L4 6-8)")
    p.add_argument("--object-size", metavar="MIN-MAX",
                   help="object size range in px, in [4, 4096] and fitting the canvas "
                   "(default: 20-40 scaled with the canvas)")
    p.add_argument("--kind-weights", metavar="SPEC",
                   help="rule-kind weights per level, e.g. 'L1:color=2,shape=1;L3:quadrant=0' "
                   "(kinds left out of a listed level get 0; default: uniform)")
    p.add_argument("--vocabulary", default="classic",
                   help=f"{' | '.join(PRESETS)} (default: %(default)s)")
    p.add_argument("--colors", metavar="NAMES",
                   help=f"comma-separated colours from {','.join(COLOR_TABLE)} (default: the "
                   "vocabulary's)")
    p.add_argument("--shapes", metavar="NAMES",
                   help="comma-separated shapes (solid or flat names) from "
                   f"{','.join(names[0] for names in SHAPE_TABLE)} (default: the vocabulary's)")
    p.add_argument("--shape-names", metavar="NAMING",
                   help=f"{' | '.join(SHAPE_NAMINGS)}: how prompts and records name shapes "
                   "(default: solid)")
    p.add_argument("--prompt-variants", default="1", metavar="N",
                   help=f"wordings per rule kind, an integer in [1, {len(WORDINGS)}] "
                   "(default: 1, the exact prompts)")
    p.add_argument("--look", default="flat", metavar="LOOK",
                   help=f"{' | '.join(LOOKS)}: objects drawn as outlined flat shapes or as lit "
                   "solids (default: %(default)s)")


def _knobs(args) -> dict:
    """The knobs of ``_add_knobs`` as ``RunConfig`` fields; ParameterError (naming the
    option) for a value that does not parse."""
    from .task.config import parse_kind_weights, parse_range
    from .task.vocabulary import parse_prompt_variants

    def parsed(value, parse, option):
        return None if value is None else parse(value, option)

    return {"num_objects": parsed(args.num_objects, parse_range, "--num-objects"),
            "object_size": parsed(args.object_size, parse_range, "--object-size"),
            "kind_weights": parsed(args.kind_weights, parse_kind_weights, "--kind-weights"),
            "vocabulary": args.vocabulary, "colors": args.colors, "shapes": args.shapes,
            "shape_names": args.shape_names,
            "prompt_variants": parse_prompt_variants(args.prompt_variants, "--prompt-variants"),
            "look": args.look}


def _add_seed(p) -> None:
    from .dataset.content.shards import MAX_SEED

    p.add_argument("--seed", type=int, default=0,
                   help=f"base seed, an integer in [0, {MAX_SEED}] (default: %(default)s)")


# --------------------------------------------------------------------------- generate

def _add_generate(sub) -> None:
    from .dataset.run.run_config import DEFAULT_SHARD_SIZE, DEFAULT_SHARDS, MAX_CANVAS, MAX_COUNT
    from .dataset.run.run_config import min_canvas_side
    from .dataset.formats import FORMATS
    from .task.vocabulary import LEVELS
    from .runtime.parallel import BACKENDS
    from .dataset.content.plan import MAX_CHUNK_BYTES, max_chunk_size
    from .runtime.scheduler import DEFAULT_TIMEOUT
    from .ground_truth.video import FPS_RANGE, FRAMES_RANGE

    p = sub.add_parser("generate", help="generate a dataset (resumable, byte-deterministic)",
                       description="Generate Object Subtraction tasks into OUT. Rerunning the "
                       "same command resumes an interrupted run.")
    p.add_argument("--out", type=_out_path, default="objsub_dataset",
                   help="output folder, or an object-store URL: s3://, gs://, az:// (see "
                   "docs/object_storage.md; default: %(default)s)")
    p.add_argument("--count", type=int, default=1000,
                   help=f"number of tasks, an integer in [1, {MAX_COUNT:,}] (default: "
                   "%(default)s); a larger count than OUT's dataset with the same options "
                   "extends it")
    p.add_argument("--levels", type=_levels, default=LEVELS,
                   help="comma-separated levels, interleaved with equal counts (default: "
                   "L1,L2,L3,L4)")
    _add_seed(p)
    p.add_argument("--format", default="webdataset", choices=None,
                   help=f"{' | '.join(FORMATS)} (default: %(default)s)")
    p.add_argument("--shard-size", type=int, default=None,
                   help="tasks per shard, an integer >= 1 (default: that of the dataset in OUT "
                   "unless --overwrite, else "
                   f"count/{DEFAULT_SHARDS} rounded down, at most {DEFAULT_SHARD_SIZE:,})")
    add_workers(p, "shards to write", "all cores, or 1 for a run too small to gain from more")
    p.add_argument("--backend", default="loky", help=f"{' | '.join(BACKENDS)} (default: loky)")
    p.add_argument("--scheduler", default=None,
                   help="dask.distributed scheduler address, e.g. tcp://host:8786 (--backend dask)")
    p.add_argument("--scheduler-timeout", type=float, default=DEFAULT_TIMEOUT,
                   help="seconds allowed to reach --scheduler, in (0, 3600] (default: %(default)g)")
    p.add_argument("--canvas-size", type=_canvas, default=(256, 256),
                   help=f"frame size W or WxH, each side in [{min_canvas_side()}, {MAX_CANVAS}] "
                   "(default: 256)")
    p.add_argument("--masks", action="store_true", help="also write instance maps")
    p.add_argument("--split", default=None,
                   help="train | test | validation: the split this dataset is; each split "
                   "draws its seeds from its own block, so a train and a test set of one "
                   "configuration never share a seed (train: the seeds of a run without "
                   "--split; recorded in the manifest and the dataset card)")
    _add_knobs(p)
    p.add_argument("--videos", action="store_true", default=None,
                   help="also write each task's ground-truth video, H.264 mp4 (always on for "
                   "the vbvr formats)")
    p.add_argument("--video-style", help="how removed objects go in the videos: fade | shrink "
                   "| slide (default: fade)")
    p.add_argument("--fps", type=int, help=f"video frame rate, an integer in {list(FPS_RANGE)} "
                   "(default: 16)")
    p.add_argument("--video-frames", type=int, help="frames per video, an integer in "
                   f"{list(FRAMES_RANGE)} (default: 61, 3.8 s at 16 fps)")
    p.add_argument("--video-encoder", dest="encoder",
                   help="H.264 encoder of the videos: objsub (this project's own: fast, the "
                   "same bytes on every machine) | x264 (libx264 via PyAV, as before) "
                   "(default: objsub)")
    p.add_argument("--vbvr-pack", help="--format vbvr: tar shards (as VBVR ships them) or plain "
                   "folders: tar | folders (default: tar)")
    p.add_argument("--vbvr-split",
                   help="--format vbvr-bench: the split folder (default: Out-of-Domain_50)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a dataset of a different configuration in OUT")
    p.add_argument("--chunk-size", type=int, default=None,
                   help="tasks per engine call in a worker, an integer >= 1; bounds memory, "
                   "never changes the output (default: as many as fit 30 MiB of frames, 160 at "
                   "256x256; at most "
                   f"{MAX_CHUNK_BYTES >> 30} GiB of frames per worker, "
                   f"{max_chunk_size((256, 256))} at 256x256)")
    p.add_argument("--no-space-check", action="store_true",
                   help="skip the check of the estimated dataset size against the free space")
    add_quiet(p)
    _add_storage_options(p, take_over=True)
    p.set_defaults(handler=_generate)


def _storage_options(text: str) -> dict:
    from .storage import parse_storage_options

    try:
        return parse_storage_options(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--storage-options ")) from None


def _add_storage_options(p, take_over: bool = False) -> None:
    """Options of an object-store URL (``objsub_fast.storage``)."""
    p.add_argument("--storage-options", type=_storage_options, default={}, metavar="JSON",
                   help="fsspec options of a store URL, a JSON object, e.g. "
                   "'{\"endpoint_url\": \"http://127.0.0.1:9000\"}' (credentials otherwise "
                   "come from the store's standard configuration, e.g. AWS_* variables)")
    if take_over:
        p.add_argument("--take-over-lease", action="store_true",
                       help="take over a store prefix whose lease is held by a dead run on "
                       "another machine (make sure that run is gone)")


def _existing_shard_size(out: str, storage_options: dict):
    """The shard size of the dataset in ``out`` (None if there is none): extending a dataset
    must keep its shards."""
    from .dataset.run.target import read_manifest_of

    try:
        size = ((read_manifest_of(out, storage_options) or {}).get("config") or {}).get(
            "shard_size")
    except OSError:
        return None
    return size if isinstance(size, int) else None


#: ``generate`` options that only some runs read: field -> (when it is read, why not).
_SCOPED = {"video_style": (lambda c: c.videos, "without --videos"),
           "fps": (lambda c: c.videos, "without --videos"),
           "video_frames": (lambda c: c.videos, "without --videos"),
           "encoder": (lambda c: c.videos, "without --videos"),
           "vbvr_pack": (lambda c: c.format == "vbvr", "outside --format vbvr"),
           "vbvr_split": (lambda c: c.format == "vbvr-bench", "outside --format vbvr-bench")}


def run_config(args):
    """The ``RunConfig`` of parsed ``generate`` arguments; UsageError for an option the run
    would not read (``--fps`` without videos, ``--vbvr-split`` outside vbvr-bench, ...)."""
    from .dataset.run.run_config import RunConfig
    from .dataset.run.options import OPTIONS

    shard_size = (args.shard_size if args.shard_size is not None or args.overwrite
                  else _existing_shard_size(args.out, args.storage_options))
    given = {name: getattr(args, name) for name in _SCOPED if getattr(args, name) is not None}
    config = RunConfig(count=args.count, levels=args.levels, seed=args.seed, format=args.format,
                       shard_size=shard_size, canvas_size=args.canvas_size, masks=args.masks,
                       videos=args.videos, split=args.split, **given, **_knobs(args))
    config.validate()  # a bad --format is named as such first
    for name in given:
        read, why = _SCOPED[name]
        if not read(config):
            raise UsageError(f"{OPTIONS[name][0]} has no effect {why}: leave it out")
    return config


def _generate(args) -> int:
    from .dataset.formats import get_format, shards_are_files
    from .dataset.run.sample import format_bytes
    from .dataset.run.pipeline import generate

    config = run_config(args)
    manifest = generate(config, args.out, workers=args.workers, backend=args.backend,
                        scheduler=args.scheduler, scheduler_timeout=args.scheduler_timeout,
                        chunk_size=args.chunk_size, overwrite=args.overwrite,
                        space_check=not args.no_space_check, quiet=args.quiet,
                        storage_options=args.storage_options,
                        take_over_lease=args.take_over_lease)
    size = sum(s["bytes"] for s in manifest["shards"])
    shards = (f" in {counted(manifest['num_shards'], 'shard')}" if shards_are_files(config)
              else "")  # a folder format holds task folders: its shards are no files
    if manifest["tasks_written"]:
        print(f"{PROG}: wrote {counted(manifest['tasks_written'], 'task')}; {args.out} holds "
              f"{counted(config.count, 'task')}{shards} ({format_bytes(size)})")
    else:
        print(f"{PROG}: nothing to do, {counted(config.count, 'task')} already complete in "
              f"{args.out}")
    pattern = get_format(config.format).shard_pattern(manifest["num_shards"])
    if pattern is not None:
        print(f"{PROG}: shards: {os.path.join(args.out, pattern)}")
    return EXIT_OK


# --------------------------------------------------------------------------- verify

def _add_verify(sub) -> None:
    p = sub.add_parser("verify", help="check a dataset against its manifest and the generator",
                       description="Check the dataset in DIR. Every byte of a dataset is a "
                       "pure function of the configuration in DIR/manifest.json, so verify "
                       "regenerates every shard and compares it byte for byte: each shard's "
                       "SHA-256 and task count, every task's members, and the format's own "
                       "files (stray shards or task folders, vmeval_dataset.json). Missing tasks "
                       "are listed as ranges; an unfinished run is named first, with the "
                       "command that finishes it. Files in DIR that the dataset does not own "
                       "are listed as warnings (problems with --strict). Exit status: 0 every "
                       "task is correct, 1 problems found (one line each), 2 unusable input "
                       "(e.g. no manifest); warnings alone exit with 0.")
    p.add_argument("dir", metavar="DIR", help="dataset folder (holds manifest.json), or its "
                   "object-store URL (s3://, gs://, az://)")
    add_workers(p, "shards", "all cores, or 1 for a dataset too small to gain from more")
    p.add_argument("--deep", action="store_true",
                   help="also decode every frame and re-derive every removed set from its "
                   "prompt (slower)")
    p.add_argument("--strict", action="store_true",
                   help="files in DIR that the dataset does not own are problems (exit status "
                   "1), not warnings")
    add_quiet(p)
    _add_storage_options(p)
    p.set_defaults(handler=_verify)


def _verify(args) -> int:
    from .dataset.check.verify import format_report, verify

    report = verify(args.dir, workers=args.workers, quiet=args.quiet, deep=args.deep,
                    storage_options=args.storage_options, strict=args.strict)
    print(format_report(report, args.dir))
    return EXIT_OK if report.ok else EXIT_PROBLEMS


# --------------------------------------------------------------------------- preview

def _add_preview(sub) -> None:
    from .dataset.run.run_config import MAX_CANVAS, MIN_CANVAS
    from .dataset.run.preview import MAX_COLUMNS, MAX_COUNT, MAX_SHEET_PIXELS
    from .task.vocabulary import LEVELS

    p = sub.add_parser("preview", help="write a contact sheet of first/final pairs",
                       description="Write a PNG contact sheet of tasks 0..COUNT-1 of one "
                       "level: each task's first | final frame and its prompt. A sheet is "
                       f"limited to {MAX_SHEET_PIXELS // 2**20} Mpixels (e.g. {MAX_COUNT} "
                       "tasks at 256x256, 1 at 4096x4096).")
    p.add_argument("out", help="output PNG file (.png; missing folders are created), or its "
                   "object-store URL (s3://, gs://, az://)")
    p.add_argument("--level", default="L1",
                   help=f"level to show, one of {', '.join(LEVELS)} (default: %(default)s)")
    p.add_argument("--count", type=int, default=16,
                   help=f"tasks, an integer in [1, {MAX_COUNT}] (default: %(default)s)")
    _add_seed(p)
    p.add_argument("--columns", type=int, default=4,
                   help=f"pairs per row, an integer in [1, {MAX_COLUMNS}] (default: "
                   "%(default)s)")
    p.add_argument("--canvas-size", type=_canvas, default=(256, 256),
                   help=f"frame size W or WxH, each side in [{MIN_CANVAS}, {MAX_CANVAS}] "
                   "(default: 256)")
    _add_knobs(p)
    add_quiet(p)
    _add_storage_options(p)
    p.set_defaults(handler=_preview)


def _preview(args) -> int:
    from .dataset.run.preview import check_sheet_path, preview_sheet, save_sheet
    from .storage import is_url
    from .storage.transfer import published

    from .runtime.progress import compile_notice

    check_sheet_path(args.out)
    with compile_notice(quiet=args.quiet):
        sheet = preview_sheet(args.level, count=args.count, seed=args.seed,
                              columns=args.columns, canvas_size=args.canvas_size,
                              **_knobs(args))
    with published(args.out, "out", args.storage_options) as path:
        save_sheet(sheet, path)
    print(f"{PROG}: wrote {args.out if is_url(args.out) else path}")
    return EXIT_OK


# --------------------------------------------------------------------------- score

def _add_score(sub) -> None:
    p = sub.add_parser("score", help="score generated videos (see 'objsub-fast score --help')",
                       add_help=False)
    p.add_argument("score_args", nargs=argparse.REMAINDER)
    p.set_defaults(handler=_score)


def _score(args) -> int:
    try:
        command = importlib.import_module("objsub_fast.scoring.command")
    except ImportError as e:
        raise UsageError(f"the score command is not available in this installation ({e})") \
            from None
    parser = _Parser(prog=f"{PROG} score")
    command.add_arguments(parser)
    return command.run(parser.parse_args(args.score_args))


# --------------------------------------------------------------------------- warm-up

def _add_warm_up(sub) -> None:
    p = sub.add_parser(
        "warm-up", help="compile every kernel now (generation, videos, scoring) in one step",
        description="Compile every Numba kernel the commands use into the on-disk cache, in two "
        "processes side by side. Kernels compile once per install and per version of the "
        "sources; without this step a machine's first generate, first generate --videos and "
        "first score each compile their own.")
    add_quiet(p)
    p.set_defaults(handler=_warm_up)


def _warm_up(args) -> int:
    from .warm_up import warm_up

    if not args.quiet:
        print(f"{PROG}: compiling every kernel (generation, videos, scoring) into the cache...",
              file=sys.stderr, flush=True)
    seconds = warm_up()
    if not args.quiet:
        print(f"{PROG}: every kernel ready ({seconds:.0f} s)", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand."""
    from ._version import version_text

    parser = _Parser(prog=PROG, description="Object Subtraction benchmark at scale.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    for add in (_add_generate, _add_verify, _add_preview, _add_score, _add_warm_up):
        add(sub)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: the run stops cleanly (workers too) and says how to
    resume."""


def _raise_terminated(signum, frame):
    raise _Terminated()


class _OneCommand:
    """Stands in for argparse's subparsers where one command is a program of its own (a
    script wrapping it): its parser gets the script's name."""

    def __init__(self, prog: str):
        self.prog, self.parser = prog, None

    def add_parser(self, name, help=None, **kwargs):
        self.parser = _Parser(prog=self.prog, **kwargs)
        return self.parser


_COMMANDS = {"generate": _add_generate, "verify": _add_verify, "preview": _add_preview}


def command_main(command: str, prog: str, argv=None) -> int:
    """Run one command (``generate``, ``verify`` or ``preview``) as the program ``prog``, e.g.
    ``scripts/generate_million.py``: its usage and errors name ``prog``; return the exit code."""
    one = _OneCommand(prog)
    _COMMANDS[command](one)
    return _run_handler(one.parser.parse_args(sys.argv[1:] if argv is None else list(argv)))


def main(argv=None) -> int:
    """Run the command line; return the exit code. Run bare, print the usage and the
    commands (exit status 2)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # ``score`` options belong to the scoring module; pass them through untouched.
    if argv[:1] == ["score"]:
        return _run_handler(argparse.Namespace(handler=_score, score_args=argv[1:]))
    if argv[:1] == ["generate"]:
        _hint_out(parser, argv)
    return _run_handler(parser.parse_args(argv))


def _hint_out(parser, argv) -> None:
    """``generate FOLDER`` (the folder as a positional argument, as ``verify`` takes it): one
    line naming ``--out`` instead of argparse's bare "unrecognized arguments"."""
    _, extra = parser.parse_known_args(argv)
    folders = [a for a in extra if not a.startswith("-")]
    if folders:
        _fail(f"unrecognized argument {folders[0]!r}: generate takes its output folder as "
              f"--out (objsub-fast generate --out {folders[0]})")


def _run_handler(args) -> int:
    """Run a parsed command; its errors as one line and an exit status (module docstring)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return args.handler(args)
    except UsageError as e:
        _fail(str(e))
    except OSError as e:  # generate's own errors say how to resume; others name the path
        from .runtime.atomic import final_path

        where = f" ({final_path(e.filename)})" if e.filename else ""
        _fail(f"{e.strerror or e}{where}", EXIT_FAILED)
    except KeyboardInterrupt as e:
        hint = "; rerun the same command to resume" if args.handler is _generate else ""
        how = " (terminated)" if isinstance(e, _Terminated) else ""
        print(f"{PROG}: interrupted{how}{hint}", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(e, _Terminated) else EXIT_INTERRUPTED


def program() -> None:
    """The ``objsub-fast`` program: :func:`main`, then exit with its status. Once the command
    has finished (and said so), Ctrl-C and SIGTERM no longer interrupt: the interpreter is only
    closing the worker pool's threads, and an interrupt there would print their traceback.
    A Ctrl-C before the command has started (while its modules load) is one line, too."""
    import signal

    try:
        status = main()
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(status)


if __name__ == "__main__":
    program()
