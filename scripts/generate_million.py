#!/usr/bin/env python
"""Generate a large Object Subtraction dataset: a thin wrapper around ``objsub-fast generate``.

    python scripts/generate_million.py --count 1000000 --workers 32 --out /data/objsub
"""
import sys

from objsub_fast.cli import main

if __name__ == "__main__":
    sys.exit(main(["generate", *sys.argv[1:]]))
