"""Compare two control-verdict files of ``bench_score.py --verdicts`` video by video.

    python scripts/compare_verdicts.py BEFORE.jsonl AFTER.jsonl

Prints how many videos each file has right, and every video whose verdict changed (right or
wrong, and the metrics that failed) between the two: a scorer change must explain each one.
Exits 1 when a video right before is wrong after.
"""
from __future__ import annotations

import argparse
import json
import sys


def load(path: str) -> dict:
    """(look, vocabulary, video) -> verdict record, the last one of each key."""
    out = {}
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            out[(rec["look"], rec["vocabulary"], rec["video"])] = rec
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    args = parser.parse_args(argv)
    before, after = load(args.before), load(args.after)
    common = sorted(set(before) & set(after))
    print(f"before: {sum(r['right'] for r in before.values())}/{len(before)} right; "
          f"after: {sum(r['right'] for r in after.values())}/{len(after)} right; "
          f"{len(common)} videos in both")
    worse = 0
    for key in common:
        b, a = before[key], after[key]
        if (b["right"], b["failed"], b["error"]) != (a["right"], a["failed"], a["error"]):
            worse += b["right"] and not a["right"]
            print(f"{'/'.join(key)}: {'right' if b['right'] else 'WRONG'} {b['failed']} -> "
                  f"{'right' if a['right'] else 'WRONG'} {a['failed']}"
                  + (f" (error: {a['error']})" if a["error"] else ""))
    print(f"{worse} video(s) right before and wrong after")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
