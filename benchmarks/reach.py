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

    python benchmarks/reach.py --manifest benchmarks/third_party.toml [--cache DIR]
                               [--populate MIRRORS] --emu

adds the programs a manifest lists (repository, commit, path: single-file programs from
individuals' repositories, whose text stays out of this one) from a cache of checkouts,
CACHE/owner+name@commit (default ~/.cache/cudafuse/third_party; `--populate MIRRORS` fills it
from git mirrors MIRRORS/owner+name/repo: the source files, and every file of a program's own
directory). With --emu each is built, then run as a user runs it, from a scratch copy of its
directory's other files (the images it opens by name): `cudafuse run FILE --spec S` with S
naming `main` (argc 1, no arguments), and shown as
ran / run failed (with what the program or cudafuse said) / not built (the first error). A
run that ends well after a launch the GPU refuses (an empty grid: `run` warns; a GPU runs
such a program to its end too) is shown as "ran, but the GPU refuses a launch", counted as ran
and listed, with how many there are. A run the time limit (`--timeout`, wall clock) stops says
how many CPU-seconds it had in that time and the load average then ("[it had 37 CPU-s; load
14.2]"): on a shared machine a run may get a small part of its limit.

    python benchmarks/reach.py --survey benchmarks/survey/manifest.toml [--survey-cache DIR]
                               [--only NAME ...]

adds the third-party survey's programs (benchmarks/survey.py: repository files in a cache,
DIR/owner+name/..., default $CUDAFUSE_SURVEY_CACHE or ~/.cache/cudafuse-survey): each is built
for the emulator with its flags and run with its own spec (entry host function, through the
manifest's wrapper where it has one), `cudafuse run FILE --spec benchmarks/survey/specs/NAME.toml`.
Every run's working directory is a fresh scratch directory (a main may write files into it).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARK = "<!-- reach -->"
MARK_MANIFEST = "<!-- reach: third-party manifest -->"
# (A path may hold spaces: cs344's "Problem Sets/Problem Set 3/...".)
_ERROR = re.compile(r"^(?:[^\n]*?:\d+(?::\d+)?: |[^\n]*?: )?error: (.*)$", re.M)


@dataclass
class Row:
    path: Path
    status: str  # ok, refused, SILENT, CRASH
    kernels: int
    spelled: int
    detail: str = ""
    emu: str = ""  # "", "built", or "not built: ..."
    run: str = ""  # manifest programs under --emu: "", "ran", "run failed: ...", "not run"
    nvcc_rejects: bool = False  # a manifest program nvcc does not compile either


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


def _split_flags(flags: list[str]) -> tuple[list[str], list[str], list[str]]:
    """-I, -D and -include values of a flag list ("-I", DIR, "-D", X=1, ...)."""
    out: dict[str, list[str]] = {"-I": [], "-D": [], "-include": []}
    for flag, value in zip(flags[::2], flags[1::2], strict=True):
        out[flag].append(value)
    return out["-I"], out["-D"], out["-include"]


def emu_build(path: Path, includes: list[str], opt: str = "-O0",
              flags: list[str] | None = None) -> str:
    from cudafuse.diagnostics import CudafuseError
    from cudafuse.runtime.build import BuildOptions, build

    dirs, defines, forced = _split_flags(flags or [])
    try:
        build(str(path), "emu", BuildOptions(
            include_dirs=(str(path.parent), *includes, *dirs), defines=tuple(defines),
            forced_includes=tuple(forced), opt=opt))
    except CudafuseError as exc:
        errors = [d for d in exc.diagnostics if d.severity.value == "error"]
        if len(errors) > 1 and errors[0].message.startswith("cannot build for the emulator"):
            errors = errors[1:]  # g++'s error says what is missing (an include, a name)
        first = errors[0] if errors else exc.diagnostics[0] if exc.diagnostics else None
        return "not built: " + (first.message.splitlines()[0] if first else "?")
    except Exception as exc:  # noqa: BLE001 - a crash is a finding, reported as such
        return f"not built: CRASH {type(exc).__name__}: {exc}"
    return "built"


def load_manifest(manifest: Path) -> list[dict[str, str]]:
    import tomllib

    programs = tomllib.loads(manifest.read_text())["program"]
    for p in programs:
        if not {"repo", "commit", "path"} <= p.keys():
            raise SystemExit(f"{manifest}: every [[program]] needs repo, commit and path: {p}")
    return programs


def checkout(cache: Path, program: dict[str, str]) -> Path:
    return cache / f"{program['repo'].replace('/', '+')}@{program['commit']}"


def populate(cache: Path, mirrors: Path, programs: list[dict[str, str]]) -> None:
    """Each program's repository at its commit, extracted from a git mirror into the cache:
    its source files, and every file of each program's own directory (the images and data
    its main opens by a relative name, as it is run from there)."""
    for p in programs:
        target = checkout(cache, p)
        name = p["repo"].replace("/", "+")
        git_dir = next((d for d in (mirrors / name / "repo", mirrors / name / ".git",
                                    mirrors / name, mirrors / f"{name}.git")
                        if (d / "HEAD").is_file()), None)
        if git_dir is None:
            if not target.is_dir():
                print(f"no mirror of {p['repo']} under {mirrors}", file=sys.stderr)
            continue
        if not target.is_dir():
            tmp = target.with_name(target.name + ".part")
            tmp.mkdir(parents=True, exist_ok=True)
            _extract(git_dir, p["commit"], tmp, _is_source)
            tmp.rename(target)
        folder = str(Path(p["path"]).parent)
        _extract(git_dir, p["commit"], target,
                 lambda n, folder=folder: str(Path(n).parent) == folder)


_SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".c", ".cc",
                    ".cpp", ".cxx", ".tcc")


def _is_source(name: str) -> bool:
    return name.lower().endswith(_SOURCE_SUFFIXES)


def _extract(git_dir: Path, commit: str, into: Path, wanted: Callable[[str], bool]) -> None:
    """The files of `commit` that `wanted` takes and `into` does not hold yet (a mirror may
    lack large blobs: images, data; those are left out)."""
    git = ["git", "--git-dir", str(git_dir)]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", commit], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    names = [n for n in names if wanted(n) and not (into / n).exists()]
    if not names:
        return
    query = "".join(f"{commit}:{n}\n" for n in names).encode()
    out = subprocess.run([*git, "cat-file", "--batch"], input=query, capture_output=True,
                         check=True).stdout
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":  # "<object> missing"
            continue
        size = int(header[2])
        dest = into / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(out[at:at + size])
        at += size + 1


_SPEC_MAIN = 'entry = "main"\n'


def nvcc_check(path: Path, includes: list[str], flags: list[str] | None = None) -> str:
    """Whether nvcc compiles the program (`nvcc -c`, no GPU needed): "" or its first error."""
    cmd = ["nvcc", "-c", "-std=c++17", "-arch=sm_90", "-I", str(path.parent), *(flags or [])]
    for d in includes:
        cmd += ["-I", d]
    try:
        proc = subprocess.run([*cmd, str(path), "-o", os.devnull], capture_output=True,
                              text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"nvcc did not run: {exc}"
    if proc.returncode == 0:
        return ""
    err = next((ln for ln in proc.stderr.splitlines() if "error" in ln), "")
    return re.sub(r"^.*?(?:\(\d+\)|:\d+:\d+): (?:fatal )?", "", err).strip()[:120]


# `cudafuse run`'s warning at a launch the GPU refuses (docs/emulation.md, "Launches a GPU
# refuses").
_REFUSED_LAUNCH = re.compile(r"warning: (launch of .*?): on a GPU it fails with ", re.M)


# Runs a command (argv[1:]) and writes the CPU seconds it and its children used, with the
# 1-minute load average, as the last line of stderr; exits as the command did.
_CPU_OF = """import os, resource, signal, subprocess, sys
r = subprocess.call(sys.argv[1:])
u = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu, load = u.ru_utime + u.ru_stime, os.getloadavg()[0]
sys.stderr.write(f"\\ncudafuse-reach-cpu: {cpu:.2f} {load:.1f}\\n")
sys.stderr.flush()
if r < 0:
    signal.signal(-r, signal.SIG_DFL)
    os.kill(os.getpid(), -r)
sys.exit(r)
"""
_CPU_LINE = re.compile(r"\n?cudafuse-reach-cpu: ([\d.]+) ([\d.]+)\n")


def emu_run(exe: str, path: Path, includes: list[str], timeout: float,
            spec: Path | None = None, flags: list[str] | None = None) -> str:
    """`cudafuse run` on the program's main (or `spec`'s entry): "ran", or why not, with the
    last line the program itself wrote to stderr when cudafuse's message does not say it (a
    usage line, a file it could not open). It runs in a scratch directory of its own."""
    # It runs elsewhere: the caller's relative paths (the survey's specs/..., -I dirs) as
    # absolute ones.
    spec = spec.resolve() if spec is not None else None
    flags = [str(Path(f).resolve()) if prev in ("-I", "-include") else f
             for prev, f in zip(["", *(flags or [])], flags or [], strict=False)]
    with tempfile.TemporaryDirectory(prefix="cf-reach-") as scratch:
        # The program's directory's other files (images, data) beside it, as when it is run
        # from there; what it writes stays in the scratch directory.
        for f in path.parent.iterdir():
            if f.is_file() and not _is_source(f.name) and not f.name.startswith("."):
                shutil.copy2(f, scratch)
        if spec is None:
            spec = Path(scratch) / f"{path.stem}.cudafuse-main.toml"
            spec.write_text(_SPEC_MAIN)
        cmd = [exe, "run", str(path), "--spec", str(spec), "--timeout", str(timeout),
               *(flags or [])]
        for d in [str(path.parent), *includes]:
            cmd += ["-I", d]
        try:
            proc = subprocess.run([sys.executable, "-c", _CPU_OF, *cmd], capture_output=True,
                                  text=True, timeout=timeout + 120, cwd=scratch)
        except subprocess.TimeoutExpired:
            return f"run failed: no answer in {timeout + 120:.0f} s"
    cpu = _CPU_LINE.search(proc.stderr)
    proc.stderr = _CPU_LINE.sub("", proc.stderr)
    refused = _REFUSED_LAUNCH.search(proc.stderr)
    if proc.returncode == 0 and refused:
        # It ends well as on a GPU, but a launch did not run: not an input it supports.
        return f"ran, but the GPU refuses a launch: {refused.group(1)[:160]}"
    if proc.returncode == 0:
        return "ran"
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    ours = [ln for ln in lines if _ERROR.match(ln)]
    said = [ln for ln in lines if not _ERROR.match(ln) and not ln.startswith(("Traceback",
                                                                              "  "))]
    why = _ERROR.match(ours[-1]).group(1) if ours else (lines[-1] if lines else
                                                          f"exit status {proc.returncode}")
    if said and "main returned" in why:
        why += f"; the program said: {said[-1][:100]}"
    why = why[:220]
    if _TIMED_OUT in why and cpu:
        # On a shared machine the limit is wall clock: say how much CPU the run got in it.
        why += f" [it had {float(cpu.group(1)):.0f} CPU-s; load {cpu.group(2)}]"
    return f"run failed: {why}"


def _abstract(message: str) -> str:
    """Group first diagnostics by kind: quoted names and numbers replaced."""
    return re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'X'", message))[:110]


def table(rows: list[Row], roots: list[Path]) -> str:
    out = ["| file | result | kernels | detail |", "|---|---|---|---|"]
    for r in rows:
        rel = next((str(r.path.relative_to(root)) for root in roots
                    if r.path.is_relative_to(root)), str(r.path))
        detail = r.detail + (f" [emu: {r.emu}]" if r.emu else "") + \
            (f" [run: {r.run}]" if r.run else "")
        out.append(f"| {rel} | {r.status} | {r.kernels}/{r.spelled} | {detail} |")
    return "\n".join(out)


# `cudafuse run`'s message when --timeout stops the program (runtime/emu_exec.py).
_TIMED_OUT = "no answer after"


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
        runs = [r for r in rows if r.run]
        if runs:
            ran = sum(r.run.startswith("ran") for r in runs)
            refused = sum(r.run.startswith("ran, but") for r in runs)
            valid = [r for r in runs if not r.nvcc_rejects]
            lines.append(f"manifest programs: {len(runs)}, of which nvcc compiles "
                         f"{len(valid)}; built: {sum(r.emu == 'built' for r in valid)}; built "
                         f"and ran (main, exit status 0): {ran} "
                         f"({100 * ran / max(len(valid), 1):.1f}% of those nvcc compiles; "
                         f"{refused} of them after a launch the GPU refuses)")
            # A run stopped by --timeout has met no error nor refusal: its work (sizes and
            # trials written into main) takes one CPU longer than the limit.
            timed = sum(r.emu == "built" and _TIMED_OUT in r.run for r in valid)
            lines.append(f"of the {len(valid) - ran} others, stopped only by the time limit: "
                         f"{timed}")
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
        failed = [r for r in rows if r.run and r.run != "ran" and r.emu == "built"]
        if failed:
            lines.append("why the built manifest programs did not run to exit status 0, or "
                         "ran after a launch the GPU refuses:")
            lines += [f"  {r.path.name}: {r.run}" for r in failed]
    return "\n".join(lines)


@dataclass
class SurveyRow:
    name: str
    emu: str = ""  # "built" or "not built: ..."
    run: str = ""  # "ran", "run failed: ...", "not run"
    nvcc: str = ""  # nvcc's first error, "" when it compiles the program


def survey_run(exe: str, prog: Any, timeout: float) -> SurveyRow:
    """One survey program built for the emulator and run with its own spec (through the
    manifest's wrapper, written beside the program so that its relative includes resolve)."""
    row = SurveyRow(prog.name)
    path: Path = prog.path
    shim = path.with_name(f".cf-reach-{os.getpid()}-{prog.name}.cu")
    if prog.wrapper:
        shim.write_text(f'#include "{path.name}"\n{prog.wrapper}')
    target = shim if prog.wrapper else path
    try:
        row.emu = emu_build(target, [], "-O2", prog.flags)
        row.run = (emu_run(exe, target, [], timeout, prog.spec, prog.flags)
                   if row.emu == "built" else "not run")
        if row.emu != "built":  # what was built: the program with the wrapper after it
            row.nvcc = nvcc_check(target, [], prog.flags)
    finally:
        shim.unlink(missing_ok=True)
    return row


def survey_summary(rows: list[SurveyRow]) -> str:
    valid = [r for r in rows if not r.nvcc]
    built = sum(r.emu == "built" for r in valid)
    ran = sum(r.run.startswith("ran") for r in valid)
    refused = sum(r.run.startswith("ran, but") for r in valid)
    lines = [f"survey programs: {len(rows)}, of which nvcc compiles {len(valid)}; built: "
             f"{built}; built and ran (entry from its spec, exit status 0): {ran} "
             f"({100 * ran / max(len(valid), 1):.1f}% of those nvcc compiles; {refused} of "
             "them after a launch the GPU refuses)"]
    for r in rows:
        if r.run != "ran":
            why = r.run if r.emu == "built" else r.emu
            lines.append(f"  {r.name}: {why[:200]}"
                         + (f" (nvcc rejects it too: {r.nvcc})" if r.nvcc else ""))
    return "\n".join(lines)


def run_survey(exe: str, manifest: Path, cache: Path, jobs: int, timeout: float,
               only: list[str] | None = None) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from survey import load  # benchmarks/survey.py: the manifest's programs and flags

    progs, _ = load(manifest, cache)
    if only:
        unknown = set(only) - {p.name for p in progs}
        if unknown:
            raise SystemExit(f"--only: not in {manifest}: {', '.join(sorted(unknown))}")
        progs = [p for p in progs if p.name in only]
    for p in progs:
        if not p.path.exists():
            print(f"{p.name}: not in the cache: {p.path}", file=sys.stderr)
    progs = [p for p in progs if p.path.exists()]
    with ThreadPoolExecutor(jobs) as pool:
        rows = list(pool.map(lambda p: survey_run(exe, p, timeout), progs))
    for r in rows:
        print(f"| {r.name} | {r.emu} | {r.run} |")
    return survey_summary(rows)


MARK_SURVEY = "<!-- reach: survey programs -->"


def _write_block(doc_path: Path, mark: str, block: str) -> None:
    doc = doc_path.read_text()
    if mark in doc:
        head, _, rest = doc.partition(mark)
        _, _, tail = rest.partition(mark)
        doc = f"{head}{mark}\n{block}\n{mark}{tail}"
    else:
        doc += f"\n{mark}\n{block}\n{mark}\n"
    doc_path.write_text(doc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpora", nargs="*", type=Path, help="directories searched for *.cu")
    ap.add_argument("--manifest", type=Path, help="third-party programs (repo, commit, path, "
                    "and includes: the program's own -I directories, from the repository's "
                    "root)")
    ap.add_argument("--cache", type=Path, help="checkouts of the manifest's repositories "
                    "(default ~/.cache/cudafuse/third_party)")
    ap.add_argument("--populate", type=Path, metavar="MIRRORS",
                    help="fill the cache from git mirrors MIRRORS/owner+name/repo first")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run of main")
    ap.add_argument("-I", dest="includes", action="append", default=[],
                    help="include directory for every file (e.g. cuda-samples/Common)")
    ap.add_argument("--emu", action="store_true", help="also build single-file programs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--write", type=Path, help="put the summary into this markdown file")
    ap.add_argument("--survey", type=Path, help="the survey's manifest "
                    "(benchmarks/survey/manifest.toml): build and run each program's entry "
                    "with its spec")
    ap.add_argument("--survey-cache", type=Path, default=Path(os.environ.get(
        "CUDAFUSE_SURVEY_CACHE", Path.home() / ".cache" / "cudafuse-survey")))
    ap.add_argument("--only", action="append", metavar="NAME",
                    help="with --survey: only this program (repeatable); the totals are "
                    "then of those alone")
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "cudafuse")
    if args.survey:
        text = run_survey(exe, args.survey, args.survey_cache.resolve(), args.jobs,
                          args.timeout, args.only)
        print()
        print(text)
        if args.write:
            _write_block(args.write, MARK_SURVEY,
                         f"Corpus: {args.survey}.\n\n```\n{text}\n```")
        if not (args.corpora or args.manifest):
            return 0
    roots = [c.resolve() for c in args.corpora]
    every = sorted(p for root in roots for p in root.rglob("*.cu"))
    parts = fragments(every)
    files = [p for p in every if p not in parts]
    listed: list[Path] = []
    own_includes: dict[Path, list[str]] = {}  # a manifest program's own -I (its build's)
    if args.manifest:
        programs = load_manifest(args.manifest)
        cache = (args.cache or Path.home() / ".cache" / "cudafuse" / "third_party").resolve()
        cache.mkdir(parents=True, exist_ok=True)
        if args.populate:
            populate(cache, args.populate, programs)
        for p in programs:
            path = checkout(cache, p) / p["path"]
            own_includes[path] = [str(checkout(cache, p) / d) for d in p.get("includes", [])]
            if path.is_file():
                listed.append(path)
            else:
                print(f"not in the cache: {p['repo']}@{p['commit'][:12]} {p['path']}",
                      file=sys.stderr)
        roots.append(cache)
        files += listed
    print(f"{len(every)} .cu files; {len(parts)} of them are #included by another and not "
          "analysed alone", file=sys.stderr)
    includes = [str(Path(d).resolve()) for d in args.includes]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda p: analyse(exe, p, includes), files))
        if args.emu:
            progs = [r for r in rows if r.path not in listed and single_file_program(r.path)]
            for r, res in zip(progs, pool.map(lambda r: emu_build(r.path, includes), progs),
                              strict=True):
                r.emu = res
            mine = [r for r in rows if r.path in listed]

            def inc(r: Row) -> list[str]:
                return [*own_includes.get(r.path, []), *includes]

            # Built as `cudafuse run` builds (-O2), so that its run finds the build cached.
            for r, res in zip(mine, pool.map(lambda r: emu_build(r.path, inc(r), "-O2"),
                                             mine), strict=True):
                r.emu = res
            for r, res in zip(mine, pool.map(
                    lambda r: emu_run(exe, r.path, inc(r), args.timeout)
                    if r.emu == "built" else "not run", mine), strict=True):
                r.run = res
            # A program the emulator does not build: does nvcc build it?
            for r, res in zip(mine, pool.map(
                    lambda r: nvcc_check(r.path, inc(r)) if r.emu != "built" else "", mine),
                    strict=True):
                if res:
                    r.emu += f" (nvcc rejects it too: {res})"
                    r.nvcc_rejects = True
    print(table(rows, roots))
    text = summary(rows, args.emu) + (f"\n({len(parts)} .cu files #included by others "
                                      "not counted)")
    print()
    print(text)
    if args.write:
        names = ", ".join([*(c.name for c in args.corpora),
                           *([f"{args.manifest} ({len(listed)} programs)"] if args.manifest
                             else [])])
        block = f"Corpora: {names}.\n\n```\n{text}\n```"
        _write_block(args.write, MARK if args.corpora else MARK_MANIFEST, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
