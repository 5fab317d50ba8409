"""How often vertical fusion applies to real CUDA: one line per program, and totals.

    python benchmarks/fusion_reach.py MANIFEST [-I DIR] [--jobs N] [--fuse-all]

MANIFEST lists programs one per line, `path/to/main.cu [-I dir ...]` (paths relative to the
manifest's directory; `#` starts a comment). The programs are not part of the repository
(their licences); the survey behind docs/benchmarks.md took 36 programs from 14 public
projects (cuda-samples, Rodinia, Parboil, PolyBench-ACC, llm.c and smaller ones). Each is
planned as a user would, `cudafuse plan FILE -I <its dir> [-I ...] --report R` (with
`--fuse-all` when asked: every legal group, whatever the cost model says), and counted:

    sequences   launch sequences of two or more launches
    edges       producer -> consumer edges inside them
    fused       edges inside a fused group
    siblings    pairs of independent launches fused as siblings

then the refusal notes are counted by cause (the note's reason with names abstracted), the
most common first: what to fix next.

benchmarks/survey.py is the larger survey of issue 25: 60+ programs named in
benchmarks/survey/manifest.toml, each with a run spec, so every fused file is also verified,
and every refusal reason judged right or gap.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Row:
    name: str
    rc: int
    sequences: int = 0
    edges: int = 0
    fused: int = 0
    siblings: int = 0
    causes: list[str] = field(default_factory=list)
    error: str = ""


_NAMES = re.compile(r"'[^']*'")
_NUMBERS = re.compile(r"\b\d+\b")


def cause(why: str) -> str:
    """A refusal's reason with kernel, buffer and line names abstracted."""
    return _NUMBERS.sub("N", _NAMES.sub("'X'", why))[:110]


def run(path: Path, extra: list[str], fuse_all: bool) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        cmd = [sys.executable, "-m", "cudafuse", "plan", str(path), "-I", str(path.parent),
               *extra, "--report", str(report)] + (["--fuse-all"] if fuse_all else [])
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        row = Row(str(path), res.returncode)
        if res.returncode != 0 or not report.exists():
            row.error = (res.stderr.strip().splitlines() or ["?"])[-1][:140]
            return row
        doc = json.loads(report.read_text())
    seqs = [s for s in doc.get("sequences", []) if len(s["kernels"]) >= 2]
    row.sequences = len(seqs)
    row.edges = len(doc.get("edges", []))
    row.fused = sum(1 for e in doc.get("edges", []) if e["fused"])
    row.siblings = sum(1 for s in seqs for p in s.get("siblings", []) if p["fused"])
    row.causes = [cause(e["why"]) for e in doc.get("edges", []) if not e["fused"] and e["why"]]
    row.causes += [cause(b["why"]) for b in doc.get("sequence_breaks", [])]
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest", type=Path)
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fuse-all", action="store_true")
    args = ap.parse_args()
    base = args.manifest.parent
    work = []
    for line in args.manifest.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        first, *rest = shlex.split(line)
        extra = [a if not (i and rest[i - 1] == "-I") else str(base / a)
                 for i, a in enumerate(rest)]
        for inc in args.includes:
            extra += ["-I", inc]
        work.append((base / first, extra))
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda w: run(w[0], w[1], args.fuse_all), work))
    print(f"{'program':60} {'rc':>2} {'seqs':>4} {'edges':>5} {'fused':>5} {'sibs':>4}")
    for r in rows:
        name = str(Path(r.name).relative_to(base)) if r.name.startswith(str(base)) else r.name
        print(f"{name[-60:]:60} {r.rc:>2} {r.sequences:>4} {r.edges:>5} {r.fused:>5} "
              f"{r.siblings:>4}" + (f"  {r.error}" if r.error else ""))
    parsed = sum(1 for r in rows if r.rc == 0)
    with_seq = sum(1 for r in rows if r.sequences)
    fused = sum(1 for r in rows if r.fused)
    print(f"\n{len(rows)} programs: {parsed} planned, {with_seq} with a launch sequence of 2+, "
          f"{fused} with a fused edge; edges {sum(r.edges for r in rows)}, fused "
          f"{sum(r.fused for r in rows)}; sibling pairs fused {sum(r.siblings for r in rows)}"
          f" ({'--fuse-all' if args.fuse_all else 'cost model'})")
    per_program = collections.Counter(c for r in rows for c in set(r.causes))
    print("\nrefusal causes (programs):")
    for c, k in per_program.most_common(15):
        print(f"  {k:3}  {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
