"""HFuse's register bound (Fig. 6, lines 13-16): the cap that lets the fused kernel keep as
many blocks per SM as the originals would have at the parts' block sizes, unless threads or
shared memory limit it anyway.

    b_i = SMNRegs / (d_i * NRegs(K_i))
    b_0 = min(b_1, b_2, SMShMem / ShMem(F), SMNThreads / d_0)
    r_0 = SMNRegs / (b_0 * d_0)

NRegs and ShMem come from ptxas (`nvcc --resource-usage`, which needs no GPU). ShMem(F) is
the sum of the two kernels' static shared memory: dynamic shared memory is a launch value.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cudafuse.diagnostics import error


@dataclass(frozen=True)
class SM:
    registers: int
    shared: int
    threads: int


SMS = {"sm_80": SM(65536, 164 * 1024, 2048), "sm_90": SM(65536, 228 * 1024, 2048)}


@dataclass(frozen=True)
class Resources:
    registers: int
    static_shared: int
    spill_stores: int = 0  # bytes
    spill_loads: int = 0


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


def parse_ptxas(text: str) -> dict[str, Resources]:
    """Figures per entry function, keyed by its unqualified name (the first instantiation of
    a template) and, for template instantiations, also by `name<args>` without spaces as
    c++filt spells it (see `lookup`)."""
    out: dict[str, Resources] = {}
    mangled: list[tuple[str, Resources]] = []
    current, symbol, spills = "", "", (0, 0)
    for line in text.splitlines():
        if (m := _ENTRY.search(line)) is not None:
            symbol = m.group(1)
            current, spills = kernel_name(symbol), (0, 0)
        elif current and (s := _SPILLS.search(line)) is not None:
            spills = (int(s.group(1)), int(s.group(2)))
        elif current and (u := _USED.search(line)) is not None:
            res = Resources(int(u.group(1)), int(u.group(2) or 0), *spills)
            out.setdefault(current, res)
            if symbol.startswith("_Z"):
                mangled.append((symbol, res))
            current = ""
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
    instances = [k for k in found if k.startswith(plain + "<")]
    if "<" in key:
        # A template's own entry; without c++filt (no instances known) its name alone.
        return found.get(key) if instances else found.get(plain)
    return None if len(instances) > 1 else found.get(plain)


def ptxas_resources(path: str, arch: str, include_dirs: tuple[str, ...],
                    defines: tuple[str, ...], instantiate: tuple[str, ...] = ()
                    ) -> dict[str, Resources]:
    """ptxas's figures for the kernels of `path`. `instantiate` names template kernels with
    their arguments (`mm<16>`) that the file may never instantiate itself (a file of kernels
    only): a wrapper that includes the file takes their addresses, which makes nvcc compile
    them."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise error("--regcap auto needs nvcc on PATH (it reads the kernels' register counts "
                    "from ptxas)", status=2)
    with tempfile.TemporaryDirectory(prefix="cudafuse-regs-") as tmp:
        source = path
        if instantiate:
            source = str(Path(tmp) / "instantiate.cu")
            Path(source).write_text(
                f'#include "{Path(path).resolve()}"\n'
                "void *cudafuse_instantiate[] = {"
                + ", ".join(f"(void *)&{k}" for k in instantiate) + "};\n")
        cmd = [nvcc, f"-arch={arch}", "-cubin", "--resource-usage", source, "-o",
               str(Path(tmp) / "k.cubin"), f"-I{Path(path).resolve().parent}",
               *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise error(f"--regcap auto: nvcc could not compile the input: "
                    f"{res.stderr.strip()[:500]}", path)
    return parse_ptxas(res.stdout + res.stderr)


def native_resources(paths: list[str], kernels: tuple[str, ...], arch: str,
                     include_dirs: tuple[str, ...], defines: tuple[str, ...]
                     ) -> dict[str, Resources]:
    """ptxas's figures for `kernels[i]` of `paths[i]` (a path may repeat), each file compiled
    once, with the template instantiations its kernels name."""
    found: dict[str, Resources] = {}
    for path in dict.fromkeys(paths):
        templates = tuple(k for p, k in zip(paths, kernels, strict=True)
                          if p == path and "<" in k)
        found.update(ptxas_resources(path, arch, include_dirs, defines, templates))
    return found


def register_bound(r1: Resources, d1: int, r2: Resources, d2: int, d0: int,
                   sm: SM) -> int | None:
    """r_0 rounded down to the allocation granularity (8 per thread) and clamped to what
    __maxnreg__ accepts; None when the bound would not restrict anything."""
    b1 = sm.registers // max(d1 * r1.registers, 1)
    b2 = sm.registers // max(d2 * r2.registers, 1)
    shared = r1.static_shared + r2.static_shared
    b0 = min(b1, b2, sm.shared // shared if shared else b1, sm.threads // d0)
    if b0 < 1:
        return None
    r0 = min(sm.registers // (b0 * d0) // 8 * 8, 255)
    return r0 if r0 >= 16 else None
