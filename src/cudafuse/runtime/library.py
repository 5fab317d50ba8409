"""load(): build a .cu file for a backend and call its host functions or kernels."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cudafuse.runtime import convert
from cudafuse.runtime.asan import STACK_FORMAT
from cudafuse.runtime.build import BuildOptions, Built, build
from cudafuse.runtime.emu_exec import EmuExecutor
from cudafuse.runtime.errors import KernelError
from cudafuse.runtime.prepared import Prepared
from cudafuse.runtime.trampoline import Signature, parse_manifest

BACKENDS = ("emu", "nvcc")


def _defines(defines: dict[str, object] | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """load()'s `defines` (a mapping, None for a bare name, or NAME[=VALUE] strings) as
    BuildOptions keeps them."""
    if not defines:
        return ()
    if isinstance(defines, dict):
        return tuple(k if v is None else f"{k}={v}" for k, v in defines.items())
    return tuple(defines)


class Library:
    """A built program. `call` runs a host function, `launch` a kernel; numpy arrays are
    copied to device buffers before and back into the same arrays after."""

    def __init__(self, path: str, backend: str, built: Built, executor: Any):
        self.path = path
        self.backend = backend
        self.built = built
        self._exec = executor
        self.signatures: dict[str, Signature] = parse_manifest(
            executor.manifest, {e.sym: e.name for e in built.entries})

    def _sig(self, name: str, kind: str) -> Signature:
        sig = self.signatures.get(name)
        if sig is None and name in self.built.uncallable:
            d = self.built.uncallable[name]
            raise KeyError(f"{d.file}:{d.line}:{d.col}: {d.message}")
        if sig is None and any(
                s.name.startswith(name + "(") for s in self.signatures.values()):
            have = sorted(s.name for s in self.signatures.values()
                          if s.name.startswith(name + "("))
            raise KeyError(f"{self.path}: '{name}' is overloaded: name one of {', '.join(have)}")
        if sig is None or sig.kind != kind:
            have = sorted(s.name for s in self.signatures.values() if s.kind == kind)
            other = " (it is a kernel: use launch)" if sig and kind == "host" else \
                " (it is a host function: use call)" if sig else ""
            raise KeyError(f"{self.path}: no callable {kind} function '{name}'{other}; "
                           f"available: {', '.join(have) or 'none'}")
        return sig

    def call(self, name: str, *args: Any) -> Any:
        sig = self._sig(name, "host")
        items = convert.convert(sig, args)
        rc, ret, arrays = self._exec.run("h", sig.symbol_for(len(args)), items, None)
        convert.copy_back(args, items, arrays)
        if rc:
            raise KernelError.cuda(f"call of '{name}'", rc)
        value = convert.decode(sig.ret, ret)
        if name == "main" and value:  # a program's failure, as its exit status says
            raise KernelError(f"{self.path}: main returned {value} (the program failed; "
                              "it ran with argc 1, no arguments)")
        return value

    def launch(self, name: str, grid: Any, block: Any, shared: int = 0,
               args: Sequence[Any] = ()) -> None:
        sig = self._sig(name, "kernel")
        items = convert.convert(sig, args)
        g = convert.scalar_bytes("D", grid, f"{name}: grid")
        b = convert.scalar_bytes("D", block, f"{name}: block")
        if not isinstance(shared, int) or shared < 0:
            raise convert.ArgumentError(f"{name}: shared must be a non-negative int")
        cfg = (*memoryview(g).cast("I"), *memoryview(b).cast("I"), shared)
        rc, _, arrays = self._exec.run("k", sig.symbol or name, items, cfg)
        convert.copy_back(args, items, arrays)
        if rc:
            raise KernelError.cuda(f"launch of '{name}'", rc)

    def prepare(self, name: str, *args: Any, grid: Any = None, block: Any = None,
                shared: int = 0) -> Prepared:
        """A call of host function `name` (or, given grid and block, a launch of kernel
        `name`) with its arguments converted once, to run many times: see prepared.py."""
        if grid is None and block is None:
            sig = self._sig(name, "host")
            op, cfg, label = "h", None, f"call of '{name}'"
        else:
            sig = self._sig(name, "kernel")
            g = convert.scalar_bytes("D", grid, f"{name}: grid")
            b = convert.scalar_bytes("D", block, f"{name}: block")
            if not isinstance(shared, int) or shared < 0:
                raise convert.ArgumentError(f"{name}: shared must be a non-negative int")
            cfg = (*memoryview(g).cast("I"), *memoryview(b).cast("I"), shared)
            op, label = "k", f"launch of '{name}'"
        items = convert.convert(sig, args)
        return self._exec.prepare(op, sig.symbol_for(len(args)), label, args, items, cfg)

    def close(self) -> None:
        self._exec.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
            return
        try:  # the error already under way is the one to report
            self.close()
        except KernelError:
            pass

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


# Search and macro flags of the front end's arguments the compiler takes too (with their
# value: separate, attached or after `=`); the value of those naming a path made absolute,
# since the compilers run elsewhere.
_SEARCH_FLAGS = {"-isystem": True, "-iquote": True, "-idirafter": True, "-imacros": True,
                 "-U": False}


def search_flags(args: Sequence[str]) -> tuple[str, ...]:
    """(flag, value, ...) of `args`' -isystem/-iquote/-idirafter DIR, -imacros FILE and -U
    NAME: what `cudafuse run` and `verify` take for the front end, which the nvcc and
    emulator builds must see too (a header found only on -isystem would not build)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        flag = next((f for f in _SEARCH_FLAGS if arg == f or arg.startswith(f)), None)
        if flag is None:
            i += 1
            continue
        if arg == flag and i + 1 < len(args):
            value, i = args[i + 1], i + 2
        else:
            value, i = arg[len(flag):].removeprefix("="), i + 1
        if value:
            out += [flag, os.path.abspath(value) if _SEARCH_FLAGS[flag] else value]
    return tuple(out)


def load(path: str | os.PathLike[str], backend: str = "emu", *,
         include_dirs: Sequence[str] = (), defines: Mapping[str, object] | Sequence[str] | None
         = None, opt: str = "", sanitize: bool = False, seed: int | None = None,
         fibers: bool = False, timeout: float | None = None, arch: str = "sm_90",
         forced_includes: Sequence[str] = (), std_args: Sequence[str] = (),
         fill: int | None = None, unwritten: str | None = None,
         threads: int | None = None, reverse: str = "", parallel_log: str | None = None,
         launch_faults: str | None = None,
         nvcc_flags: Sequence[str] = ()) -> Library:
    """Build `path` for `backend` ("emu": g++ and the emulator; "nvcc": the GPU).

    emu only: `seed` runs the threads of each block in a seeded random order between
    barriers (to expose races); `fibers` runs every kernel on fibers; `sanitize` builds with
    AddressSanitizer; `timeout` (seconds) stops a call that does not finish.
    `opt` is the compiler's optimisation level ("": -O2, or CUDAFUSE_EMU_OPT for emu).
    `forced_includes` are included before the source (as -include); of `std_args` (extra
    front-end arguments) a -std= is passed to the compiler too, and so are -isystem,
    -iquote, -idirafter, -imacros and -U (`search_flags`). emu only: `fill` is the
    byte fresh cudaMalloc memory holds (default 0); `unwritten` a file that gets a line per
    allocation still holding fill bytes when freed or at exit (runtime/uninit.py).
    `threads` is the number of OS threads that run the blocks of a parallel launch (1: all
    serial; default: the CPUs); `reverse` names a kernel ("*": every one) whose parallel
    launches run their blocks serially in decreasing linear id, and `parallel_log` a file that
    gets a line per site of a launch that may run its blocks in parallel ("kernel\tfile\tline"):
    verify's check for races between blocks (execute.py). `launch_faults` is a file that gets
    a line per launch the GPU would refuse (emu/launch_faults.py); without it the emulator
    warns on stderr.
    nvcc only: `nvcc_flags` are passed to nvcc after the others (--fmad=false, ...).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "nvcc":
        from cudafuse.runtime.gpu import require_pycuda

        require_pycuda()
    std = next((a for a in reversed(std_args) if a.startswith("-std=")), "")
    opts = BuildOptions(tuple(str(d) for d in include_dirs), _defines(defines), opt, sanitize,
                        arch, tuple(str(f) for f in forced_includes), std,
                        tuple(nvcc_flags), search_flags(std_args))
    built = build(str(path), backend, opts)
    if backend == "nvcc":
        from cudafuse.runtime.gpu import GpuExecutor

        return Library(str(path), backend, built, GpuExecutor(built.library))
    env: dict[str, str] = {}
    if seed:
        env["CUDAFUSE_EMU_SEED"] = str(seed)
    if fibers:
        env["CUDAFUSE_EMU_FIBERS"] = "1"
    if fill is not None:
        env["CUDAFUSE_EMU_FILL"] = str(fill & 0xFF)
    if unwritten is not None:
        env["CUDAFUSE_EMU_UNWRITTEN"] = unwritten
    if threads is not None:
        env["CUDAFUSE_EMU_THREADS"] = str(threads)
    if reverse:
        env["CUDAFUSE_EMU_REVERSE"] = reverse
    if parallel_log is not None:
        env["CUDAFUSE_EMU_PARALLEL_LOG"] = parallel_log
    if launch_faults is not None:
        env["CUDAFUSE_EMU_LAUNCH_FAULTS"] = launch_faults
    if sanitize:
        asan = subprocess.run(["g++", "-print-file-name=libasan.so"], capture_output=True,
                              text=True).stdout.strip()
        env["LD_PRELOAD"] = asan
        env["ASAN_OPTIONS"] = ("detect_leaks=0:abort_on_error=0:stack_trace_format="
                               + STACK_FORMAT)
    return Library(str(path), backend, built, EmuExecutor(Path(built.library), env, timeout))
