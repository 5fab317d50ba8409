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
    out: dict[str, Resources] = {}
    current, spills = "", (0, 0)
    for line in text.splitlines():
        if (m := _ENTRY.search(line)) is not None:
            current, spills = kernel_name(m.group(1)), (0, 0)
        elif current and (s := _SPILLS.search(line)) is not None:
            spills = (int(s.group(1)), int(s.group(2)))
        elif current and (u := _USED.search(line)) is not None:
            out.setdefault(current, Resources(int(u.group(1)), int(u.group(2) or 0), *spills))
            current = ""
    return out


def ptxas_resources(path: str, arch: str, include_dirs: tuple[str, ...],
                    defines: tuple[str, ...]) -> dict[str, Resources]:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise error("--regcap auto needs nvcc on PATH (it reads the kernels' register counts "
                    "from ptxas)", status=2)
    with tempfile.TemporaryDirectory(prefix="cudafuse-regs-") as tmp:
        cmd = [nvcc, f"-arch={arch}", "-c", "--resource-usage", path, "-o",
               str(Path(tmp) / "k.o"), *(f"-I{d}" for d in include_dirs),
               *(f"-D{d}" for d in defines)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise error(f"--regcap auto: nvcc could not compile the input: "
                    f"{res.stderr.strip()[:500]}", path)
    return parse_ptxas(res.stdout + res.stderr)


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
