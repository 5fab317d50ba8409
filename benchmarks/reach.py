"""How much real CUDA cudafuse accepts: one line per .cu file of a corpus, and totals.

    python benchmarks/reach.py CORPUS_DIR [CORPUS_DIR...] [-I DIR] [--emu] [--jobs N]
                               [--write docs/benchmarks.md]

The corpora are not part of the repository (their size and licences); fetch them yourself,
e.g. NVIDIA/cuda-samples (pass `-I cuda-samples/Common`) and the CUDA half of Rodinia.
Each file is analysed as a user would, `cudafuse analyze --format json -I <its dir> -I ...`,
and classified:

    ok       exit 0 and every kernel the file defines (`__global__` with a body, read from
             the text) is in the analysis
    refused  exit 1 or 2: the first diagnostic's message is shown
    SILENT   exit 0 but kernels the text spells are missing, other than those a note says
             are only in preprocessor branches not taken (must never happen)
    CRASH    exit 3 (an internal error) or a traceback (must never happen)

With --emu, every single-file program (a file with `main` whose directory's other source files
have their own `main`, so none is a part of it) is also
built for the emulator, as `cudafuse run` builds it, and shown as built / not built with the
first error. The summary counts the first diagnostics by message (names abstracted).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

MARK = "<!-- reach -->"
_ERROR = re.compile(r"^(?:\S*?:\d+(?::\d+)?: |\S+: )?error: (.*)$", re.M)


@dataclass
class Row:
    path: Path
    status: str  # ok, refused, SILENT, CRASH
    kernels: int
    spelled: int
    detail: str = ""
    emu: str = ""  # "", "built", or "not built: ..."


def _spelled(path: Path) -> int:
    from cudafuse.frontend.kernel_census import spelled_kernels

    data = path.read_bytes()
    # The text alone (no preprocessor): a kernel under `#if 0` would count, so this errs
    # towards reporting a miss, never towards hiding one.
    return len({k.name for k in spelled_kernels(data, []) if k.defined})


_SKIP = re.compile(r"warning: skipping '[^']*': (.*)$", re.M)


def _first_error(stderr: str) -> str:
    """The first error; for kernels that could not be analysed, the first skip's reason."""
    m = _ERROR.search(stderr)
    if m and "kernels this file defines could not be analysed" in m.group(1):
        skip = _SKIP.search(stderr)
        if skip:
            return "kernel skipped: " + skip.group(1).strip()
    return m.group(1).strip() if m else (stderr.strip().splitlines() or ["(no message)"])[-1]


_INCLUDE_CU = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+\.cuh?)[">]', re.M)


def fragments(files: list[Path]) -> set[Path]:
    """.cu files that another file of the corpus #includes: parts of a translation unit,
    not programs a user would compile (or analyse) on their own."""
    out = set()
    for f in files:
        for m in _INCLUDE_CU.finditer(f.read_bytes()):
            cand = (f.parent / m.group(1).decode(errors="replace")).resolve()
            if cand.suffix == ".cu" and cand.is_file() and cand != f:
                out.add(cand)
    return out


_NOT_TAKEN = re.compile(r"note: (\d+) kernels? defined only in preprocessor branches not taken")


def analyse(exe: str, path: Path, includes: list[str]) -> Row:
    cmd = [exe, "analyze", "--format", "json", "-I", str(path.parent)]
    for d in includes:
        cmd += ["-I", d]
    proc = subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=300)
    spelled = _spelled(path)
    if proc.returncode == 3 or "Traceback" in proc.stderr:
        return Row(path, "CRASH", 0, spelled, _first_error(proc.stderr))
    if proc.returncode != 0:
        return Row(path, "refused", 0, spelled, _first_error(proc.stderr))
    kernels = {k["name"].rsplit("::", 1)[-1] for k in json.loads(proc.stdout)["kernels"]}
    # Kernels only in branches the preprocessor did not take are named by a note; the text
    # count includes them.
    m = _NOT_TAKEN.search(proc.stderr)
    not_taken = int(m.group(1)) if m else 0
    if len(kernels) + not_taken < spelled:
        return Row(path, "SILENT", len(kernels), spelled, "kernels missing without an error")
    return Row(path, "ok", len(kernels), spelled,
               f"{not_taken} in #if branches not taken" if not_taken else "")


_SOURCES = ("*.cu", "*.cpp", "*.cc", "*.cxx", "*.c")


_MAIN = re.compile(rb"\bint\s+main\s*\(")


def single_file_program(path: Path) -> bool:
    """A program whose whole source is this file: it has `main`, and every other source file
    of its directory has its own `main` (llm.c's dev/cuda: one program per file), so none is
    a second translation unit of it (a `*_gold.cpp` beside it is one)."""
    sources = [p for pattern in _SOURCES for p in path.parent.glob(pattern)]
    return path in sources and all(_MAIN.search(p.read_bytes()) is not None for p in sources)


def emu_build(path: Path, includes: list[str]) -> str:
    from cudafuse.diagnostics import CudafuseError
    from cudafuse.runtime.build import BuildOptions, build

    try:
        build(str(path), "emu", BuildOptions(include_dirs=(str(path.parent), *includes),
                                             opt="-O0"))
    except CudafuseError as exc:
        first = next((d for d in exc.diagnostics if d.severity.value == "error"),
                     exc.diagnostics[0] if exc.diagnostics else None)
        return "not built: " + (first.message.splitlines()[0] if first else "?")
    except Exception as exc:  # noqa: BLE001 - a crash is a finding, reported as such
        return f"not built: CRASH {type(exc).__name__}: {exc}"
    return "built"


def _abstract(message: str) -> str:
    """Group first diagnostics by kind: quoted names and numbers replaced."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'X'", message))[:110]


def table(rows: list[Row], roots: list[Path]) -> str:
    out = ["| file | result | kernels | detail |", "|---|---|---|---|"]
    for r in rows:
        rel = next((str(r.path.relative_to(root)) for root in roots
                    if r.path.is_relative_to(root)), str(r.path))
        detail = r.detail + (f" [emu: {r.emu}]" if r.emu else "")
        out.append(f"| {rel} | {r.status} | {r.kernels}/{r.spelled} | {detail} |")
    return "\n".join(out)


def summary(rows: list[Row], emu: bool) -> str:
    n = len(rows)
    counts = collections.Counter(r.status for r in rows)
    lines = [f"files: {n}; analysed: {counts['ok']} ({100 * counts['ok'] / max(n, 1):.1f}%); "
             f"refused: {counts['refused']}; silent misses: {counts['SILENT']}; "
             f"crashes: {counts['CRASH']}"]
    if emu:
        progs = [r for r in rows if r.emu]
        built = sum(r.emu == "built" for r in progs)
        lines.append(f"single-file programs: {len(progs)}; built for the emulator: {built} "
                     f"({100 * built / max(len(progs), 1):.1f}%)")
    refusals = collections.Counter(_abstract(r.detail) for r in rows if r.status != "ok")
    if refusals:
        lines.append("first diagnostics of the files not analysed:")
        lines += [f"  {c:3d}  {m}" for m, c in refusals.most_common(15)]
    if emu:
        fails = collections.Counter(_abstract(r.emu) for r in rows
                                    if r.emu and r.emu != "built")
        if fails:
            lines.append("first errors of the programs not built:")
            lines += [f"  {c:3d}  {m}" for m, c in fails.most_common(15)]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="+", type=Path, help="directories searched for *.cu")
    ap.add_argument("-I", dest="includes", action="append", default=[],
                    help="include directory for every file (e.g. cuda-samples/Common)")
    ap.add_argument("--emu", action="store_true", help="also build single-file programs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--write", type=Path, help="put the summary into this markdown file")
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "cudafuse")
    roots = [c.resolve() for c in args.corpora]
    every = sorted(p for root in roots for p in root.rglob("*.cu"))
    parts = fragments(every)
    files = [p for p in every if p not in parts]
    print(f"{len(every)} .cu files; {len(parts)} of them are #included by another and not "
          "analysed alone", file=sys.stderr)
    includes = [str(Path(d).resolve()) for d in args.includes]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda p: analyse(exe, p, includes), files))
        if args.emu:
            progs = [r for r in rows if single_file_program(r.path)]
            for r, res in zip(progs, pool.map(lambda r: emu_build(r.path, includes), progs),
                              strict=True):
                r.emu = res
    print(table(rows, roots))
    text = summary(rows, args.emu) + (f"\n({len(parts)} .cu files #included by others "
                                      "not counted)")
    print()
    print(text)
    if args.write:
        doc = args.write.read_text()
        names = ", ".join(c.name for c in roots)
        block = f"Corpora: {names}.\n\n```\n{text}\n```"
        if MARK in doc:
            head, _, rest = doc.partition(MARK)
            _, _, tail = rest.partition(MARK)
            doc = f"{head}{MARK}\n{block}\n{MARK}{tail}"
        else:
            doc += f"\n{MARK}\n{block}\n{MARK}\n"
        args.write.write_text(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
