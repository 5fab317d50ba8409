"""ptxas's figures for the kernels of a CUDA source: registers, spills, static shared memory.

`nvcc -arch=<arch> -cubin --resource-usage` needs no GPU (FACTS.md), so every machine with
the toolkit has them; `-cubin` compiles the device side only, which is more than half of a
full `-c`. A compile takes a second or more, so results are cached on disk by a sha256 of
what decides them (the source bytes, the arch, the flags, nvcc's version line) under
$CUDAFUSE_CACHE_DIR/ptxas (default ~/.cache/cudafuse/ptxas, the build cache's root).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import asdict
from pathlib import Path

from cudafuse.outputs import write_atomic
from cudafuse.passes.horizontal.regbound import Resources, parse_ptxas

CACHE_FORMAT = 1


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
                    name: str = "source.cu") -> dict[str, Resources] | str:
    """Figures per kernel (regbound.parse_ptxas's keys: unqualified names, and template
    instantiations as `name<args>`), or why there are none (nvcc missing or failing)."""
    version = nvcc_version()
    if version is None:
        return "nvcc is not on PATH"
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, arch, list(flags), version]).encode()
                         + b"\0" + source).hexdigest()
    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text())
        return {k: Resources(**v) for k, v in data.items()}
    except (OSError, ValueError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="cudafuse-ptxas-") as tmp:
        src = Path(tmp) / name
        src.write_bytes(source)
        cmd = ["nvcc", f"-arch={arch}", "-cubin", "--resource-usage", str(src), "-o",
               str(Path(tmp) / "k.cubin"), *flags]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if res.returncode != 0:  # not cached: a missing header may be there next time
        return "nvcc failed: " + " ".join(res.stderr.split())[:300]
    result = parse_ptxas(res.stdout + res.stderr)
    record = {k: asdict(v) for k, v in result.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (json.dumps(record, sort_keys=True) + "\n").encode())
    except OSError:
        pass  # an unwritable cache costs a recompile next time, nothing else
    return result
