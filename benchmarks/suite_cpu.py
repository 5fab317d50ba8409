"""Where the test suite's CPU goes: the per-test lines CUDAFUSE_TEST_CPU makes
(tests/conftest.py), summed by test file, largest first.

    CUDAFUSE_TEST_CPU=/tmp/cpu .venv/bin/pytest -q -n 2 --dist worksteal tests/fusion
    .venv/bin/python benchmarks/suite_cpu.py /tmp/cpu [--top 30] [--tests 20]
    .venv/bin/python benchmarks/suite_cpu.py /tmp/after --against /tmp/before

With --against, the files both logs ran, side by side: CPU seconds and emulator builds in
each, and of the tests of the first log (`before`) those the second (`after`) did not run
(moved behind a marker, or gone), their CPU seconds.

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


def against(after: list[dict], before: list[dict], top: int) -> None:
    cpu = lambda r: r["self"] + r["children"]  # noqa: E731
    ran = {r["id"] for r in after}
    a, b = by_file(after), by_file(before)
    gone: dict[str, float] = defaultdict(float)
    for r in before:
        if r["id"] not in ran:
            gone[r["id"].split("::")[0]] += cpu(r)
    print(f"{'before':>7} {'n':>4} {'after':>7} {'n':>4} {'not run':>7}  file (CPU-s, builds)")
    rows = sorted(set(a) & set(b), key=lambda f: -(b[f]["self"] + b[f]["children"]))
    for f in rows[:top]:
        print(f"{b[f]['self'] + b[f]['children']:7.1f} {int(b[f]['builds']):4d} "
              f"{a[f]['self'] + a[f]['children']:7.1f} {int(a[f]['builds']):4d} "
              f"{gone[f]:7.1f}  {f}")
    tb = sum(b[f]["self"] + b[f]["children"] for f in rows)
    ta = sum(a[f]["self"] + a[f]["children"] for f in rows)
    print(f"{tb:7.1f}      {ta:7.1f}      {sum(gone[f] for f in rows):7.1f}  "
          f"{len(rows)} files in both")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix")
    ap.add_argument("--top", type=int, default=30, help="files to list")
    ap.add_argument("--tests", type=int, default=0, help="single tests to list")
    ap.add_argument("--against", metavar="PREFIX",
                    help="a log of the same files before a change: compare them by file")
    args = ap.parse_args()
    rows = read(args.prefix)
    if args.against:
        against(rows, read(args.against), args.top)
        return
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
