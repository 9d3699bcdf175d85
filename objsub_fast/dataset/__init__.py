"""Datasets on disk: one module per output format, and the pieces every format shares.

``formats.FORMATS`` maps a format name to its module (``webdataset``, ``vmevalkit``, ``vbvr``,
``vbvr_bench``); each format module holds its names, its shard writer, its shard reader (for
``verify``) and its dataset-level hooks (``finalize``, ``check_dataset``). Shared pieces:
``config`` (RunConfig, ``load_manifest``), ``options`` (a configuration in command-line terms),
``plan`` (chunk driving), ``members`` (the sample members and their encoders), ``tar`` and
``folders`` (the two container kinds), ``manifest``, ``output`` (output folder: resume, extend,
replace, and resume state), ``sample`` (a run's first tasks in memory: engine check, kernel
compile, size and time estimates, free-space check), ``progress``, ``parallel`` (worker count,
backend, workers that stop with their parent), ``create`` (``create_dataset``) and
``crashpoint`` (a deterministic kill -9 for tests). ``objsub_fast.dataset.pipeline`` (generate) and
``objsub_fast.dataset.verify`` import these; neither borrows from the other, and no module here imports
one that imports it back (``tests/test_imports.py``).
"""
__all__: list = []
