#!/usr/bin/env python3
"""`hfuse --regcap auto` against what a GPU measured: for each sample pair of a profiling
log (bench_hfuse.py's --jsonl, e.g. benchmarks/results/2026-11-28-h200-2/hfuse.jsonl), the
cap auto picks at the thread split the profile chose (or its fastest thread split, when it
kept the natives), from ptxas on this machine (nvcc, no GPU), beside the candidates timed
at that split: their registers, blocks per SM and median time. docs/hfuse.md records it.

    python benchmarks/regcap_check.py benchmarks/results/2026-11-28-h200*/hfuse.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cudafuse.cli.hfuse import candidate_setup  # noqa: E402
from cudafuse.frontend import ParseOptions  # noqa: E402
from cudafuse.passes.horizontal.inputs import resolve_inputs  # noqa: E402
from cudafuse.passes.horizontal.regcap_auto import decide  # noqa: E402
from cudafuse.profile.candidates import Candidate  # noqa: E402
from cudafuse.runtime.spec import tomllib  # noqa: E402

SAMPLES = ROOT / "samples" / "hfuse"


def split_of(report: dict) -> str | None:
    """'thread:T1+T2' the profile chose, else its fastest timed thread split."""
    chosen = report.get("choice", {}).get("id", "")
    if chosen.startswith("thread:"):
        return chosen.rsplit(":", 1)[0]
    timed = [c for c in report.get("candidates", []) if c["id"].startswith("thread:")
             and c.get("timing")]
    best = min(timed, key=lambda c: c["timing"]["median_ms"], default=None)
    return best["id"].rsplit(":", 1)[0] if best else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", type=Path)
    args = ap.parse_args()
    pairs = {p["name"]: p for p in tomllib.loads((SAMPLES / "pairs.toml").read_text())["pair"]}
    defines = tuple(tomllib.loads((SAMPLES / "pairs.toml").read_text()).get("defines", []))
    for log in args.logs:
        for line in log.read_text().splitlines():
            row = json.loads(line)
            pair, report = pairs.get(row.get("pair", "")), row.get("report") or {}
            split = split_of(report)
            if pair is None or split is None:
                continue  # a pair of the paper's own files, or nothing fused was timed
            t1, t2 = (int(t) for t in split.split(":")[1].split("+"))
            opts = ParseOptions(arch="sm_90", include_dirs=(str(SAMPLES),), defines=defines)
            inputs = resolve_inputs((str(SAMPLES / pair["file1"]), str(SAMPLES / pair["file2"])),
                                    f"{pair['kernel1']},{pair['kernel2']}", None, None, opts,
                                    [])
            _, emit = candidate_setup(inputs, 128)
            flags = (f"-I{SAMPLES}", *(f"-D{d}" for d in defines))
            choice = decide(lambda cap, t1=t1, t2=t2, emit=emit:
                            emit("thread", Candidate("thread", t1, t2, cap)),
                            t1 + t2, "sm_90", flags)
            print(f"{log}: {row['pair']} {split}: auto picks "
                  f"{'none' if choice.cap is None else choice.cap}")
            print("\n".join(choice.table()))
            for c in report["candidates"]:
                if c["id"].startswith(split + ":"):
                    t = (c.get("timing") or {}).get("median_ms")
                    occ = (c.get("occupancy") or {}).get("blocks_per_sm")
                    print(f"    measured {c['id']}: {c.get('registers')} registers, "
                          f"{occ} blocks/SM, " + (f"{t:.4f} ms" if t else
                                                  f"not timed ({(c.get('skip') or '')[:60]})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
