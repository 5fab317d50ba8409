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

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

# ptxas's figures are read in analysis/ (the vertical pass and profiling read them too); the
# names stay importable here, where the register bound uses them.
from cudafuse.analysis.ptxas import (  # noqa: F401
    Resources,
    _instance_name,
    kernel_name,
    lookup,
    parse_ptxas,
)
from cudafuse.diagnostics import error


@dataclass(frozen=True)
class SM:
    registers: int
    shared: int
    threads: int


SMS = {"sm_80": SM(65536, 164 * 1024, 2048), "sm_90": SM(65536, 228 * 1024, 2048)}


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
            Path(source).write_text(f'#include "{Path(path).resolve()}"\n' +
                                    "".join(map(_instantiation, enumerate(instantiate))))
        # --extended-lambda as the compile check and analysis/ptxas.py compile (ATen's
        # SummaryOps.cu holds `[] __device__` lambdas).
        cmd = [nvcc, f"-arch={arch}", "-cubin", "--resource-usage", "--extended-lambda",
               source, "-o", str(Path(tmp) / "k.cubin"), f"-I{Path(path).resolve().parent}",
               *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines)]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise error(f"--regcap auto: nvcc could not compile the input: "
                    f"{res.stderr.strip()[:500]}", path)
    return parse_ptxas(res.stdout + res.stderr)


def _instantiation(item: tuple[int, str]) -> str:
    """A definition taking the address of the kernel `at::native::k<InvStd, float>`, inside
    its namespaces: its template arguments are written as in the kernel's own file (PyTorch's
    `InvStd` is `at::native::InvStd`), and resolve there as they do for hfuse."""
    from cudafuse.codegen.templates import parse_kernel_ref

    index, kernel = item
    name, args = parse_kernel_ref(kernel)
    *spaces, base = name.lstrip(":").split("::")
    ref = base + (f"<{', '.join(args)}>" if args is not None else "")
    text = f"void *cudafuse_instantiate{index} = (void *)&{ref};\n"
    for space in reversed(spaces):
        text = f"namespace {space} {{\n{text}}}\n"
    return text


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
