"""Where the test suite's CPU goes: the per-test lines CUDAFUSE_TEST_CPU makes
(tests/conftest.py), summed by test file, largest first.

    CUDAFUSE_TEST_CPU=/tmp/cpu .venv/bin/pytest -q -n 2 --dist worksteal tests/fusion
    .venv/bin/python benchmarks/suite_cpu.py /tmp/cpu [--top 30] [--tests 20]

CPU seconds, not wall: on a machine shared with other work the wall durations grow with the
load, the CPU a test spends does not (much). `own` is the pytest process's (parsing,
analysis, fusion in Python), `children` what it waited for (g++, nvcc, the `cudafuse`
processes tests start, emulation workers when closed: a worker kept open for later tests
counts for the test that closes it), `build` the part of `children` spent in emulator
builds (runtime/build.py) and `n` their number.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

FIELDS = ("tests", "wall", "self", "children", "build", "builds")


def read(prefix: str) -> list[dict]:
    root = Path(prefix)
    files = sorted(root.parent.glob(root.name + ".*.jsonl"))
    if not files:
        raise SystemExit(f"no {prefix}.*.jsonl: run pytest with CUDAFUSE_TEST_CPU={prefix}")
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line]


def by_file(rows: list[dict]) -> dict[str, dict[str, float]]:
    sums: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0.0))
    for r in rows:
        s = sums[r["id"].split("::")[0]]
        s["tests"] += 1
        for k in FIELDS[1:]:
            s[k] += r[k]
    return dict(sums)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix")
    ap.add_argument("--top", type=int, default=30, help="files to list")
    ap.add_argument("--tests", type=int, default=0, help="single tests to list")
    args = ap.parse_args()
    rows = read(args.prefix)
    files = by_file(rows)
    total = {k: sum(s[k] for s in files.values()) for k in FIELDS}
    cpu = total["self"] + total["children"]
    print(f"{int(total['tests'])} tests: CPU {cpu:.0f} s (own {total['self']:.0f}, children "
          f"{total['children']:.0f}, of which {int(total['builds'])} emulator builds "
          f"{total['build']:.0f}); sum of wall {total['wall']:.0f} s")
    print(f"{'cpu':>7} {'own':>6} {'child':>6} {'build':>6} {'n':>4} {'tests':>5}  file")
    for name, s in sorted(files.items(), key=lambda kv: -(kv[1]["self"] + kv[1]["children"])
                          )[:args.top]:
        print(f"{s['self'] + s['children']:7.1f} {s['self']:6.1f} {s['children']:6.1f} "
              f"{s['build']:6.1f} {int(s['builds']):4d} {int(s['tests']):5d}  {name}")
    for r in sorted(rows, key=lambda r: -(r["self"] + r["children"]))[:args.tests]:
        print(f"{r['self'] + r['children']:7.1f} {r['build']:6.1f} {r['builds']:4d}  {r['id']}")


if __name__ == "__main__":
    main()
