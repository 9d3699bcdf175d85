"""Datasets on disk, in four rooms, each importing only the rooms above it in this list:

``content/``
    What every format writes, before any format: the shard plan and the task seeds
    (``shards``), tasks generated a chunk at a time (``plan``), a task's sample members and
    their encoders (``members``), and ``manifest.json`` with its shard entries (``manifest``).
``formats/``
    The output formats: the table ``FORMATS`` (``formats/__init__``), the contract every format
    subclasses (``base.OutputFormat``: required hooks and shared defaults), the two containers
    (``tar``, ``folders``) and one module or sub-package per format holding everything it owns:
    ``webdataset``, ``vmevalkit/`` (with ``vmeval_dataset.json``: ``dataset_file`` writes it,
    ``dataset_check`` checks it), ``vbvr_factory/`` (``--format vbvr``; ``index`` writes and
    checks VBVR's index ``data/metadata.jsonl``) and ``vbvr_bench``.
``run/``
    A run: its configuration (``run_config``: RunConfig, ``load_manifest``; ``options``: a
    configuration in command-line terms), its output folder (``output``: resume, extend,
    replace; ``card``: the Hugging Face card and index), a store prefix as output (``target``:
    folder or store; ``mirror``: the run's local view of a prefix; ``store_jobs``: the workers'
    jobs on a store), the drivers (``sample``: a run's first tasks in memory, estimates and
    checks; ``pipeline``: ``generate``; ``stream``: ``iter_samples``), and what sits on top
    (``create``: VMEvalKit's ``create_dataset``; ``preview``: contact sheets).
``check/``
    ``verify`` (every task regenerated and compared) and ``strays`` (files no run wrote).

The worker count and backends (``runtime.parallel``) and the progress bar (``runtime.progress``)
are the run infrastructure of ``objsub_fast.runtime``; ``objsub_fast.storage`` knows nothing of
datasets. No module here imports one that imports it back (``tests/test_imports.py``).
"""
__all__: list = []
