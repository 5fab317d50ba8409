"""ptxas's figures for the kernels of a CUDA source: registers, spills, static shared memory,
read from its output (`parse_ptxas`) and found per kernel or template instance (`lookup`).

`nvcc -arch=<arch> -cubin --resource-usage` needs no GPU (FACTS.md), so every machine with
the toolkit has them; `-cubin` compiles the device side only, which is more than half of a
full `-c`. A compile takes a second or more, so results are cached on disk by a sha256 of
what decides them (the source bytes, the arch, the flags, nvcc's version line) under
$CUDAFUSE_CACHE_DIR/ptxas (default ~/.cache/cudafuse/ptxas, the build cache's root).

Each compile also keeps a digest of every kernel's machine code (analysis.cubin), so that
two compiles can be told to be the same program (`Resources.code`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from cudafuse.analysis.cubin import code_digests
from cudafuse.outputs import write_atomic

CACHE_FORMAT = 1


@dataclass(frozen=True)
class Resources:
    registers: int
    static_shared: int
    spill_stores: int = 0  # bytes
    spill_loads: int = 0
    # A sha256 of the kernel's machine code in the cubin (analysis.cubin), '' when unknown
    # (figures parsed from text, or a cubin that could not be read). Not part of equality:
    # the figures compare as figures; `code` says whether two compiles are one program.
    code: str = field(default="", compare=False)


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def kernel_name(mangled: str) -> str:
    """The unqualified name in an Itanium-mangled (or extern "C") kernel symbol."""
    m = re.match(r"_ZN((?:\d+\w+?)+)E", mangled)
    if m:
        names, rest = [], m.group(1)
        while (k := re.match(r"(\d+)", rest)) is not None:
            size = int(k.group(1))
            names.append(rest[len(k.group(1)):len(k.group(1)) + size])
            rest = rest[len(k.group(1)) + size:]
        return names[-1] if names else mangled
    m = re.match(r"_Z(\d+)", mangled)
    if m:
        return mangled[m.end():m.end() + int(m.group(1))]
    return mangled


def entry_figures(text: str) -> list[tuple[str, Resources]]:
    """(mangled symbol, figures) of each entry function ptxas compiled, in its order."""
    out: list[tuple[str, Resources]] = []
    current, symbol, spills = "", "", (0, 0)
    for line in text.splitlines():
        if (m := _ENTRY.search(line)) is not None:
            symbol = m.group(1)
            current, spills = kernel_name(symbol), (0, 0)
        elif current and (s := _SPILLS.search(line)) is not None:
            spills = (int(s.group(1)), int(s.group(2)))
        elif current and (u := _USED.search(line)) is not None:
            out.append((symbol, Resources(int(u.group(1)), int(u.group(2) or 0), *spills)))
            current = ""
    return out


def parse_ptxas(text: str, codes: dict[str, str] | None = None) -> dict[str, Resources]:
    """Figures per entry function, keyed by its unqualified name (the first instantiation of
    a template) and, for template instantiations, also by `name<args>` without spaces as
    c++filt spells it (see `lookup`). `codes`: code digests by mangled symbol
    (analysis.cubin.code_digests), set as each entry's `code`."""
    out: dict[str, Resources] = {}
    mangled: list[tuple[str, Resources]] = []
    for symbol, res in entry_figures(text):
        if codes and symbol in codes:
            res = replace(res, code=codes[symbol])
        out.setdefault(kernel_name(symbol), res)
        if symbol.startswith("_Z"):
            mangled.append((symbol, res))
    for name, res in zip(_template_names([m for m, _ in mangled]), (r for _, r in mangled),
                         strict=True):
        if name:
            out.setdefault(name, res)
    return out


def _template_names(symbols: list[str]) -> list[str]:
    """`name<args>` (no spaces) of each mangled template instantiation, '' for the others or
    when c++filt (binutils) is missing."""
    if not symbols or shutil.which("c++filt") is None:
        return [""] * len(symbols)
    res = subprocess.run(["c++filt"], input="\n".join(symbols) + "\n", capture_output=True,
                         text=True, timeout=60)
    lines = res.stdout.splitlines() if res.returncode == 0 else []
    if len(lines) != len(symbols):
        return [""] * len(symbols)
    return [_instance_name(text) for text in lines]


def _instance_name(demangled: str) -> str:
    """"void ns::box1d<float, 2>(float const*, float*, int)" -> "box1d<float,2>"; '' for a
    function that is not a template instantiation."""
    text = demangled.removeprefix("void ")
    depth, end, last_scope = 0, len(text), 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and ch == "(":
            end = i
            break
        elif depth == 0 and text.startswith("::", i):
            last_scope = i + 2
    name = text[last_scope:end].replace(" ", "")
    return name if "<" in name else ""


def lookup(found: dict[str, Resources], kernel: str) -> Resources | None:
    """The figures of `kernel` (NAME or NAME<ARGS>, as hfuse shows it); None when missing,
    or when NAME alone is asked for but ptxas compiled several instantiations of it."""
    key = kernel.replace(" ", "")
    plain = key.split("<", 1)[0]
    if "::" in plain:  # the figures are keyed by the unqualified name (parse_ptxas)
        key = key[len(plain) - len(plain.rsplit("::", 1)[1]):]
        plain = plain.rsplit("::", 1)[1]
    instances = [k for k in found if k.startswith(plain + "<")]
    if "<" in key:
        # A template's own entry; without c++filt (no instances known) its name alone.
        if not instances:
            return found.get(plain)
        if key in found:
            return found[key]
        # Arguments written as in the kernel's namespace (ATen's `...kernel<InvStd, float>`)
        # where c++filt qualifies them (`at::native::InvStd`): the one instance that
        # matches with qualifiers left out on both sides, never a guess between several.
        same = [k for k in instances if _unqualified(k) == _unqualified(key)]
        return found[same[0]] if len(same) == 1 else None
    return None if len(instances) > 1 else found.get(plain)


def _unqualified(name: str) -> str:
    """`k<at::native::InvStd,::c10::Half>` -> `k<InvStd,Half>`."""
    return re.sub(r"(?:\b[A-Za-z_]\w*)?::", "", name)


def cache_dir() -> Path:
    root = os.environ.get("CUDAFUSE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cudafuse")
    return Path(root) / "ptxas"


@functools.cache
def nvcc_version() -> str | None:
    """nvcc's release line, or None when nvcc is not on PATH."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return None
    res = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    lines = [ln for ln in res.stdout.splitlines() if "release" in ln]
    return lines[-1].strip() if lines else res.stdout.strip()


def compile_figures(source: bytes, arch: str, flags: tuple[str, ...] = (),
                    name: str = "source.cu", code: bool = False
                    ) -> dict[str, Resources] | str:
    """Figures per kernel (regbound.parse_ptxas's keys: unqualified names, and template
    instantiations as `name<args>`), or why there are none (nvcc missing or failing).
    Every compile records each kernel's code digest (`Resources.code`); `code`: a cached
    entry written before digests were kept is compiled again to get them."""
    version = nvcc_version()
    if version is None:
        return "nvcc is not on PATH"
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, arch, list(flags), version]).encode()
                         + b"\0" + source).hexdigest()
    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text())
        cached = {k: Resources(**v) for k, v in data.items()}
        if not code or all(r.code for r in cached.values()):
            return cached
    except (OSError, ValueError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="cudafuse-ptxas-") as tmp:
        src = Path(tmp) / name
        src.write_bytes(source)
        # --extended-lambda as PyTorch builds and the compile check compiles
        # (codegen/compile_check.py): ATen's `[] __device__ (...)` lambdas (SummaryOps.cu)
        # fail without it. Not in the cache key: it changes no kernel without such a
        # lambda, and a file with one was never compiled (so never cached) before.
        cmd = ["nvcc", f"-arch={arch}", "-cubin", "--resource-usage", "--extended-lambda",
               str(src), "-o", str(Path(tmp) / "k.cubin"), *flags]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        text = res.stdout + res.stderr
        try:
            cubin = (Path(tmp) / "k.cubin").read_bytes() if res.returncode == 0 else b""
        except OSError:
            cubin = b""
    if res.returncode != 0:  # not cached: a missing header may be there next time
        return "nvcc failed: " + " ".join(res.stderr.split())[:300]
    result = parse_ptxas(text, code_digests(cubin, [s for s, _ in entry_figures(text)]))
    record = {k: asdict(v) for k, v in result.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (json.dumps(record, sort_keys=True) + "\n").encode())
    except OSError:
        pass  # an unwritable cache costs a recompile next time, nothing else
    return result
