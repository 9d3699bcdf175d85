"""Datasets on disk: one module per output format, and the pieces every format shares.

``formats.FORMATS`` maps a format name to its module (``webdataset``, ``vmevalkit``, ``vbvr``,
``vbvr_bench``); each format module holds its names, its shard writer, its shard reader (for
``verify``) and its dataset-level hooks (``finalize``, ``check_dataset``). Shared pieces:
``run_config`` (RunConfig, ``load_manifest``), ``options`` (a configuration in command-line
terms), ``plan`` (chunk driving), ``members`` (the sample members and their encoders), ``tar``
and ``folders`` (the two container kinds), ``manifest``, ``output`` (output folder: resume,
extend, replace, and resume state), ``sample`` (a run's first tasks in memory: engine check,
kernel compile, size and time estimates, free-space check) and ``shards`` (the shard plan). The
worker count and backends (``runtime.parallel``) and the progress bar (``runtime.progress``)
are the run infrastructure of ``objsub_fast.runtime``.

``pipeline`` (``generate``) and ``verify`` run a dataset over these; neither borrows from the
other, and no module here imports one that imports it back (``tests/test_imports.py``). A run's
output is a folder or a store prefix (``target``); on a store, ``mirror`` is the run's local view
of the prefix and ``store_jobs`` the workers' jobs (write or verify one shard), over
``objsub_fast.storage``, which knows nothing of datasets. ``create`` (``create_dataset``, the
VMEvalKit drop-in) and ``preview`` (contact sheets of a run's tasks) sit on top.
"""
__all__: list = []
