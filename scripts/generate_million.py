#!/usr/bin/env python
"""Generate a large Object Subtraction dataset: a thin wrapper around ``objsub-fast generate``.

    python scripts/generate_million.py --count 1000000 --workers 32 --out /data/objsub
"""
import os
import sys

from objsub_fast.cli import command_main

if __name__ == "__main__":
    sys.exit(command_main("generate", os.path.basename(sys.argv[0])))
