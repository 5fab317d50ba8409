"""The third-party survey of vertical fusion (issue 25): plan, fuse and verify real programs.

    python benchmarks/survey.py [benchmarks/survey/manifest.toml] [--cache DIR] [--jobs 1]
                                [--only NAME[,NAME...]] [--no-verify] [--json OUT.jsonl]

The programs are other people's code and stay out of the repository (their licences): the
manifest names each one (project, repository, commit, path inside the cache folder, -I/-D
flags, entry host function) and benchmarks/survey/specs/NAME.toml, our own run spec for its
entry. The cache folder (--cache, else $CUDAFUSE_SURVEY_CACHE, else ~/.cache/cudafuse-survey)
holds one folder per repository, `owner+name`, with that commit's files:

    git clone https://github.com/OWNER/NAME CACHE/OWNER+NAME
    git -C CACHE/OWNER+NAME checkout COMMIT

A program whose entry cannot be called from a spec as it is (2-D array parameters, buffers in
globals that another host function allocates, `uchar4` images) has a `wrapper` in the manifest:
host code we wrote that defines the spec's entry and calls the program's. The wrapper is not
the program: the original and each fused file are verified as `#include "FILE"` followed by the
wrapper, and a copy is written to CACHE/survey-wrappers/NAME.cu to read.

For each program, as a user would, with the program's flags:

    cudafuse analyze FILE --format json    every raw producer -> consumer edge of the entry
    cudafuse fuse FILE -o F --report R     the cost model's choice
    cudafuse fuse FILE -o F --fuse-all     every legal group
    cudafuse verify FILE F --spec SPEC     each fused file that differs from FILE (emulator)

and prints one line per program and mode: edges (raw edges of the entry), reach (edges inside a
launch sequence, those the kernel rules judge), fused, verified (match / MISMATCH / could not
run / - when nothing changed), then every distinct refusal reason (names and numbers
abstracted) with its count and the manifest's judgement of it: `right` (the fusion would be
illegal or slower) or `gap` (cudafuse could fuse it), or `unjudged`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
CF = [sys.executable, "-m", "cudafuse"]
MODES = ("default", "fuse-all")

_NAMES = re.compile(r"'[^']*'")
_NUMBERS = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b")


# How much of a reason is kept, judged and listed: enough for a helper's refusal nested two
# calls down ("... does not fuse across: its call to 'X' (line N): 'X' gives its launches
# 'X', ...", about 170 characters before its deciding words).
CAUSE_CHARS = 240


def cause(why: str) -> str:
    """A refusal's reason with kernel, buffer and line names and numbers abstracted."""
    return _NUMBERS.sub("N", _NAMES.sub("'X'", why)).strip()[:CAUSE_CHARS]


@dataclass
class Judgement:
    pattern: re.Pattern[str]
    verdict: str  # right | gap
    why: str


@dataclass
class Program:
    name: str
    project: str
    path: Path
    entry: str
    spec: Path
    flags: list[str]
    kind: str = ""
    wrapper: str = ""


@dataclass
class Mode:
    reach: int = 0
    fused: int = 0
    siblings: int = 0
    verified: str = "-"
    causes: list[str] = field(default_factory=list)
    error: str = ""


@dataclass
class Row:
    prog: Program
    edges: int = 0
    error: str = ""
    modes: dict[str, Mode] = field(default_factory=dict)


def load(manifest: Path, cache: Path) -> tuple[list[Program], list[Judgement]]:
    doc = tomllib.loads(manifest.read_text())
    progs = []
    for p in doc.get("program", []):
        path = cache / p["path"]
        flags = ["-I", str(path.parent)]
        for inc in p.get("includes", []):
            flags += ["-I", str(cache / inc)]
        for d in p.get("defines", []):
            flags += ["-D", d]
        for f in p.get("force_includes", []):
            flags += ["-include", str(cache / f)]
        if p.get("empty_headers"):
            # headers the program includes but does not use (OpenCV in a file whose cv:: code is
            # commented out): empty stand-ins so the emulator can build it
            stubs = cache / "survey-wrappers" / "empty-headers" / p["name"]
            for h in p["empty_headers"]:
                (stubs / h).parent.mkdir(parents=True, exist_ok=True)
                (stubs / h).write_text("")
            flags += ["-I", str(stubs)]
        spec = manifest.parent / p.get("spec", f"specs/{p['name']}.toml")
        progs.append(Program(p["name"], p["project"], path, p["entry"], spec, flags,
                             p.get("kind", ""), p.get("wrapper", "")))
        if p.get("wrapper") and path.exists():
            shown = cache / "survey-wrappers" / f"{p['name']}.cu"
            shown.parent.mkdir(exist_ok=True)
            shown.write_text(f'#include "../{p["path"]}"\n{p["wrapper"]}')
    judged = [Judgement(re.compile(j["pattern"]), j["verdict"], j["why"])
              for j in doc.get("judgement", [])]
    return progs, judged


def _last_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if "error:" in ln] or stderr.strip().splitlines()
    return (lines[0] if lines else "?").strip()[:200]


def _cf(args: list[str], timeout: int = 1200) -> subprocess.CompletedProcess[str]:
    return subprocess.run(CF + args, capture_output=True, text=True, timeout=timeout)


def survey(prog: Program, verify: bool) -> Row:
    row = Row(prog)
    res = _cf(["analyze", str(prog.path), "--format", "json", *prog.flags])
    if res.returncode != 0:
        row.error = f"analyze exit {res.returncode}: {_last_error(res.stderr)}"
        return row
    hosts = [h for h in json.loads(res.stdout)["host_functions"] if h["name"] == prog.entry]
    # (analyze lists the functions with launches of their own; an entry whose launches are
    # all made through helpers it calls is only seen by fuse's report, below)
    row.edges = len({(e["src"], e["dst"]) for h in hosts for e in h["edges"]
                     if e["kind"] == "raw"})
    outputs: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="cf-survey-") as tmp:
        for mode in MODES:
            m = row.modes[mode] = Mode()
            # The fused file sits next to the original so its relative #includes resolve.
            out = prog.path.parent / f".cf-survey-{os.getpid()}-{prog.name}-{mode}.cu"
            report = Path(tmp) / f"{mode}.json"
            extra = ["--fuse-all"] if mode == "fuse-all" else []
            try:
                res = _cf(["fuse", str(prog.path), "-o", str(out), "--report", str(report),
                           *extra, *prog.flags])
                if res.returncode != 0 or not report.exists():
                    m.error = f"fuse exit {res.returncode}: {_last_error(res.stderr)}"
                    continue
                doc = json.loads(report.read_text())
                edges = [e for e in doc.get("edges", []) if e["host"] == prog.entry]
                m.reach = len({(e["from_launch"], e["to_launch"]) for e in edges})
                m.fused = len({(e["from_launch"], e["to_launch"]) for e in edges if e["fused"]})
                m.siblings = sum(1 for q in doc.get("sequences", []) if q["host"] == prog.entry
                                 for pair in q.get("siblings", []) if pair["fused"])
                m.causes = [cause(e["why"]) for e in edges if not e["fused"] and e["why"]]
                m.causes += [cause(b["why"]) for b in doc.get("sequence_breaks", [])
                             if b["host"] == prog.entry]
                text = out.read_bytes()
                if text == prog.path.read_bytes():
                    m.verified = "-"
                elif not verify:
                    m.verified = "not run"
                elif mode == "fuse-all" and outputs.get("default") == text:
                    m.verified = row.modes["default"].verified
                else:
                    res = _verify(prog, out)
                    if res.returncode == 0:
                        m.verified = "match"
                    elif "outputs differ from" in res.stderr:
                        m.verified = "MISMATCH"
                        m.error = (res.stdout + res.stderr).strip()[-400:]
                    else:
                        m.verified = "could not run"
                        m.error = _last_error(res.stderr or res.stdout)
                outputs[mode] = text
            finally:
                out.unlink(missing_ok=True)
    if not hosts:
        seen = [m for m in row.modes.values() if m.reach or m.causes or m.error]
        if not seen:
            row.error = f"no host function '{prog.entry}' with launches"
        row.edges = max((m.reach for m in row.modes.values()), default=0)
    return row


def _verify(prog: Program, fused: Path) -> subprocess.CompletedProcess[str]:
    if not prog.wrapper:
        return _cf(["verify", str(prog.path), str(fused), "--spec", str(prog.spec), *prog.flags])
    shims = []
    try:
        for tag, src in (("orig", prog.path), ("fused", fused)):
            shim = prog.path.parent / f".cf-survey-{os.getpid()}-{prog.name}-{tag}-main.cu"
            shim.write_text(f'#include "{src.name}"\n{prog.wrapper}')
            shims.append(shim)
        return _cf(["verify", str(shims[0]), str(shims[1]), "--spec", str(prog.spec),
                    *prog.flags])
    finally:
        for shim in shims:
            shim.unlink(missing_ok=True)


def judge(c: str, judged: list[Judgement]) -> Judgement | None:
    return next((j for j in judged if j.pattern.search(c)), None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("manifest", type=Path, nargs="?", default=HERE / "survey" / "manifest.toml")
    ap.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "CUDAFUSE_SURVEY_CACHE", Path.home() / ".cache" / "cudafuse-survey")))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="comma list of program names")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--json", type=Path, help="also write one JSON object per program")
    ap.add_argument("--check", action="store_true",
                    help="only check the manifest: specs, their entries, judgements")
    ap.add_argument("--from-json", type=Path,
                    help="print the results a --json run wrote (judged by the manifest now)")
    args = ap.parse_args()
    progs, judged = load(args.manifest, args.cache)
    if args.check:
        return check(progs, judged)
    if args.from_json:
        return report(_read_rows(args.from_json, progs), judged)
    if args.only:
        keep = set(args.only.split(","))
        progs = [p for p in progs if p.name in keep]
    missing = [p for p in progs if not p.path.exists()]
    for p in missing:
        print(f"{p.name}: not in the cache: {p.path}", file=sys.stderr)
    progs = [p for p in progs if p.path.exists()]

    def one(p: Program) -> Row:
        try:
            row = survey(p, not args.no_verify)
        except subprocess.TimeoutExpired as e:
            row = Row(p, error=f"timed out: {e.cmd[3] if len(e.cmd) > 3 else e.cmd}")
        modes = " ".join(f"{k}: {m.reach}/{m.fused} {m.verified}" for k, m in row.modes.items())
        print(f"[survey] {p.name}: edges {row.edges} {modes} {row.error}", file=sys.stderr,
              flush=True)
        return row

    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(one, progs))
    if args.json:
        with args.json.open("w") as f:
            for r in rows:
                f.write(json.dumps({"name": r.prog.name, "project": r.prog.project,
                                    "edges": r.edges, "error": r.error,
                                    "modes": {k: vars(v) for k, v in r.modes.items()}}) + "\n")
    return report(rows, judged)


def check(progs: list[Program], judged: list[Judgement]) -> int:
    """The manifest's own consistency, without the programs: exit 1 on a problem."""
    problems = []
    names = [p.name for p in progs]
    problems += [f"program name '{n}' used twice" for n in set(names) if names.count(n) > 1]
    for p in progs:
        if not p.spec.exists():
            problems.append(f"{p.name}: no spec {p.spec}")
            continue
        entry = tomllib.loads(p.spec.read_text()).get("entry")
        want = "cf_survey_entry" if p.wrapper else p.entry
        if entry != want:
            problems.append(f"{p.name}: the spec's entry is '{entry}', expected '{want}'")
        if p.wrapper and "cf_survey_entry" not in p.wrapper:
            problems.append(f"{p.name}: its wrapper defines no cf_survey_entry")
    problems += [f"judgement '{j.pattern.pattern}': verdict '{j.verdict}' is not right or gap"
                 for j in judged if j.verdict not in ("right", "gap")]
    for msg in problems:
        print(msg, file=sys.stderr)
    print(f"{len(progs)} programs from {len({p.project for p in progs})} projects, "
          f"{len(judged)} judgements: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


def _read_rows(path: Path, progs: list[Program]) -> list[Row]:
    by_name = {p.name: p for p in progs}
    rows = []
    for line in path.read_text().splitlines():
        d = json.loads(line)
        if d["name"] not in by_name:
            continue
        rows.append(Row(by_name[d["name"]], d["edges"], d["error"],
                        {k: Mode(**v) for k, v in d["modes"].items()}))
    return rows


def report(rows: list[Row], judged: list[Judgement]) -> int:
    print(f"{'program':34} {'project':30} {'edges':>5} | {'reach':>5} {'fused':>5} {'sib':>3} "
          f"{'verified':>13} | {'all:reach':>9} {'fused':>5} {'sib':>3} {'verified':>13}")
    for r in rows:
        line = f"{r.prog.name[:34]:34} {r.prog.project[:30]:30} {r.edges:>5} |"
        for mode in MODES:
            m = r.modes.get(mode)
            if m is None:
                line += f" {'':>5} {'':>5} {'':>3} {'':>13} |"
            else:
                line += f" {m.reach:>5} {m.fused:>5} {m.siblings:>3} {m.verified[:13]:>13} |"
        print(line.rstrip(" |") + (f"  {r.error}" if r.error else ""))
        for mode in MODES:
            m = r.modes.get(mode)
            if m and m.error:
                print(f"    {mode}: {m.error[:300]}")
    print()
    projects = {r.prog.project for r in rows}
    print(f"{len(rows)} programs from {len(projects)} projects; raw edges "
          f"{sum(r.edges for r in rows)}; errors {sum(1 for r in rows if r.error)}")
    for mode in MODES:
        ms = [r.modes[mode] for r in rows if mode in r.modes]
        reach, fused = sum(m.reach for m in ms), sum(m.fused for m in ms)
        ver = collections.Counter(m.verified for m in ms)
        print(f"  {mode:9}: reach {reach}, fused {fused} ({100 * fused / max(reach, 1):.0f}% "
              f"of reach), programs with a fused edge {sum(1 for m in ms if m.fused)}, sibling "
              f"pairs fused {sum(m.siblings for m in ms)}; "
              f"verified: " + ", ".join(f"{k} {v}" for k, v in sorted(ver.items())))
    mismatches = [r.prog.name for r in rows for m in r.modes.values() if m.verified == "MISMATCH"]
    print(f"  MISMATCH: {', '.join(mismatches) if mismatches else 'none'}")
    for mode in MODES:
        per_reason = collections.Counter(c for r in rows if mode in r.modes
                                         for c in r.modes[mode].causes)
        progs_of = collections.defaultdict(set)
        for r in rows:
            for c in r.modes.get(mode, Mode()).causes:
                progs_of[c].add(r.prog.name)
        print(f"\nrefusal reasons ({mode}): count, programs, judgement")
        verdicts: collections.Counter[str] = collections.Counter()
        for c, k in per_reason.most_common():
            j = judge(c, judged)
            verdicts[j.verdict if j else "unjudged"] += k
            tag = f"{j.verdict}: {j.why}" if j else "unjudged"
            print(f"  {k:4} {len(progs_of[c]):3}  [{tag}] {c}  (e.g. {sorted(progs_of[c])[0]})")
        print("  by judgement: " + ", ".join(f"{k} {v}" for k, v in verdicts.most_common()))
        grouped: collections.Counter[tuple[str, str]] = collections.Counter()
        grouped_progs = collections.defaultdict(set)
        for c, k in per_reason.items():
            j = judge(c, judged)
            key = (j.verdict, j.why) if j else ("unjudged", c[:60])
            grouped[key] += k
            grouped_progs[key] |= progs_of[c]
        print(f"  by judged reason ({mode}): count, programs, example")
        for (verdict, why), k in grouped.most_common():
            print(f"    {k:4} {len(grouped_progs[verdict, why]):3}  {verdict}: {why}"
                  f"  (e.g. {sorted(grouped_progs[verdict, why])[0]})")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
