"""The emu backend's side of the worker protocol (see worker.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import weakref
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from cudafuse.runtime import asan, guards, worker
from cudafuse.runtime.asan import Access
from cudafuse.runtime.convert import Item
from cudafuse.runtime.errors import BoundsError, KernelError


def _describe(a: Access) -> str:
    tool = "out-of-bounds access" if a.kind == "out-of-bounds" else \
        f"AddressSanitizer: {a.kind}"
    text = f"{tool}: a {a.access or 'bad'} in '{a.function or '?'}'"
    if a.file:
        col = f":{a.col}" if a.col else ""
        text += f" ({'launched at ' if a.at_launch else ''}{a.file}:{a.line}{col})"
    if a.param is not None:
        text += (f", byte {a.offset} of argument {a.param + 1} (an array of {a.nbytes} "
                 "bytes)")
    elif a.alloc_size >= 0:
        made = f" made at {a.alloc_file}:{a.alloc_line}" if a.alloc_file else ""
        text += f", byte {a.offset} of the {a.alloc_size}-byte device allocation{made}"
    return text


def _status(code: int) -> str:
    if code < 0:
        name = signal.Signals(-code).name
        hint = (" (an out-of-bounds access or a fiber stack overflow: try --sanitize, "
                "load(..., sanitize=True), or CUDAFUSE_EMU_STACK_KB)") \
            if name in ("SIGSEGV", "SIGBUS") else \
            " (glibc found its heap corrupted: an out-of-bounds write? try --sanitize)" \
            if name == "SIGABRT" else \
            (" (an integer division by zero, or of the type's minimum by -1: the host traps"
             " where a GPU's kernel goes on with an unspecified value; a divisor read from"
             " memory nothing wrote? fresh cudaMalloc memory is zero here)") \
            if name == "SIGFPE" else ""
        return f"the program crashed with {name}{hint}"
    return f"the emulation worker exited with status {code}"


def _leftovers(report: list[str], procs: list[subprocess.Popen[bytes]]) -> None:
    """What an executor never closed (a library cached until the interpreter exits, one
    dropped without close()): stop its worker and remove its report files, which would
    otherwise pile up in the temporary directory."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for path in report:
        for suffix in ("", ".bufs", ".fault"):
            try:
                os.unlink(path + suffix)
            except OSError:
                pass


# The most array bytes of earlier calls kept to replay them (see EmuExecutor.__init__).
_REPLAY_BYTES = 256 << 20

_RUN_WORKER = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


def _to_wire(items: list[Item]) -> list[Item]:
    """Array arguments as their bytes (C order): the worker has no numpy."""
    return [("a", value.tobytes()) if kind == "a" else (kind, value) for kind, value in items]


def _from_wire(items: list[Item], raw: list[bytes]) -> list[np.ndarray]:
    """The worker's bytes of each array argument as an array shaped like the one sent."""
    sent = [value for kind, value in items if kind == "a"]
    return [np.frombuffer(data, dtype=arr.dtype).reshape(arr.shape)
            for arr, data in zip(sent, raw, strict=True)]


class EmuExecutor:
    def __init__(self, library: Path, env: dict[str, str], timeout: float | None):
        self._library = library
        self._env = env
        self._timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self.manifest = ""
        # Shared with the finalizer (which must not hold self): the current report path and
        # worker, replaced when a worker that died is restarted.
        self._live_report: list[str] = []
        self._live_proc: list[subprocess.Popen[bytes]] = []
        weakref.finalize(self, _leftovers, self._live_report, self._live_proc)
        # Spec arrays end at their guard (an access one past the end faults), so their start
        # is aligned only to the largest power of two dividing their size. A program that
        # needs cudaMalloc's 256-byte alignment (int4 stores through an int* of 333
        # elements) dies of a general-protection fault; that call is then run again in a
        # fresh worker whose arrays start 256-byte aligned (worker.py), as are this
        # executor's later workers. A later call's fault loses the state (device globals,
        # allocations) the earlier calls left in the worker: they are replayed first, from
        # the arguments they were sent (kept while the worker is unaligned, up to
        # _REPLAY_BYTES; past that, the fault is the call's error as before).
        self._aligned = False
        self._sent: list[tuple] | None = []
        self._general_protection = False
        self._start()

    def _start(self) -> None:
        fd, self._report = tempfile.mkstemp(prefix="cudafuse-emu-", suffix=".txt")
        os.close(fd)
        self._live_report[:] = [self._report]
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = {**os.environ, **self._env, "CUDAFUSE_EMU_REPORT": self._report}
        # Arguments are placed where a bad access is caught (worker.py), and their addresses
        # written to .bufs; AddressSanitizer reports (--sanitize) or guard faults (the
        # default, emu/guard.cpp) go to files read back when the worker dies.
        env["CUDAFUSE_EMU_BUFFERS"] = f"{self._report}.bufs"
        if self._aligned:
            env["CUDAFUSE_EMU_ALIGN"] = "256"
        else:  # a new worker: no earlier call's state to replay
            self._sent = []
        if "ASAN_OPTIONS" in self._env:
            env["ASAN_OPTIONS"] += f":log_path={self._report}.asan"
        else:
            env["CUDAFUSE_EMU_GUARDS"] = f"{self._report}.fault"
        # The worker's file run by path in isolated mode (-I: no PYTHON* variables, no user
        # site, not the current directory on sys.path): it needs the standard library only,
        # and importing cudafuse.runtime would load numpy and the front end (400 ms and 40 MB
        # a worker, where this takes 50 ms). Not -m: runpy warns on stderr when it runs a
        # module already in sys.modules; stderr must carry only the tool's diagnostics.
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _RUN_WORKER, worker.__file__,
             str(self._library), str(to_child_r), str(from_child_w)],
            pass_fds=(to_child_r, from_child_w), env=env, stdin=subprocess.DEVNULL)
        self._live_proc[:] = [self._proc]
        os.close(to_child_r)
        os.close(from_child_w)
        self._tx = Connection(to_child_w, readable=False)
        self._rx = Connection(from_child_r, writable=False)
        kind, payload = self._receive("loading the library")
        if kind == "error":
            self.close()
            raise KernelError(payload)
        self.manifest = payload

    def _receive(self, what: str) -> tuple:
        try:
            if self._timeout is not None and not self._rx.poll(self._timeout):
                self._kill()
                raise KernelError(f"{what}: no answer after {self._timeout:g} s (an endless "
                                  "loop in the program?); the worker was stopped")
            return self._rx.recv()
        except (EOFError, OSError, ConnectionError):
            raise self._death(what) from None

    def _death(self, what: str) -> KernelError:
        assert self._proc is not None
        code = self._proc.wait()
        self._proc = None
        report = emulator = Path(self._report).read_text(errors="replace").strip()
        table = Path(f"{self._report}.bufs")
        buffers = table.read_text() if table.exists() else ""
        found: Access | None = None
        for log in sorted(Path(self._report).parent.glob(Path(self._report).name + ".asan*")):
            text = log.read_text(errors="replace")
            log.unlink()
            found = found or asan.parse(text, buffers)
            if not report and text.strip():
                keep = [ln for ln in text.strip().splitlines() if ln.strip()][:24]
                report = f"{what}: AddressSanitizer:\n" + "\n".join(keep)
        fault = Path(f"{self._report}.fault")
        self._general_protection = False
        if found is None and fault.exists():
            record = fault.read_text(errors="replace")
            found = guards.parse(record, buffers)
            self._general_protection = found is None and guards.general_protection(record)
        self._close_pipes()
        if found is not None and not emulator:
            return BoundsError(f"{what}: {_describe(found)}", found)
        if report:
            return KernelError(report)
        return KernelError(f"{what}: {_status(code)}")

    def run(self, op: str, name: str, items: list[Item],
            cfg: tuple[int, ...] | None) -> tuple[int, bytes, list[np.ndarray]]:
        if self._proc is None:
            self._start()
        what = f"{'call' if op == 'h' else 'launch'} of '{name}'"
        message = (op, name, _to_wire(items), cfg)
        try:
            answer = self._exchange(message, what)
        except KernelError:
            if not (self._general_protection and not self._aligned and self._sent is not None):
                raise
            self._aligned = True  # see __init__
            earlier, self._sent = self._sent, None
            self._start()
            for sent in earlier:  # their answers were given when they first ran
                self._exchange(sent, what)
            answer = self._exchange(message, what)
        if self._sent is not None and not self._aligned:
            self._sent.append(message)
            if sum(len(v) for m in self._sent for k, v in m[2] if k == "a") > _REPLAY_BYTES:
                self._sent = None
        if answer[0] == "error":
            raise KernelError(f"{what}: {answer[1]}")
        _, rc, ret, raw = answer
        return rc, ret, _from_wire(items, raw)

    def _exchange(self, message: tuple, what: str) -> tuple:
        self._general_protection = False
        try:
            self._tx.send(message)
        except (OSError, ConnectionError):
            raise self._death(what) from None
        return self._receive(what)

    def prepare(self, op: str, name: str, label: str, args: Any, items: list[Item],
                cfg: tuple[int, ...] | None) -> Any:
        from cudafuse.runtime.prepared import EmuPrepared

        return EmuPrepared(self, op, name, label, args, items, cfg)

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        self._close_pipes()

    def _close_pipes(self) -> None:
        for conn in (getattr(self, "_tx", None), getattr(self, "_rx", None)):
            if conn is not None and not conn.closed:
                conn.close()
        Path(self._report).unlink(missing_ok=True)
        Path(f"{self._report}.bufs").unlink(missing_ok=True)
        Path(f"{self._report}.fault").unlink(missing_ok=True)

    def close(self) -> None:
        """Stop the worker. One that did not exit cleanly (glibc's heap checks abort it
        after a call whose results it had already sent: an out-of-bounds write corrupted
        the heap) makes the results it sent suspect: that is a KernelError."""
        if self._proc is None:
            self._close_pipes()
            return
        self._tx.close()
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            code = 0
        if code != 0:
            raise self._death("at exit, after the last call's results were read (they are "
                              "not to be trusted)")
        self._proc = None
        self._close_pipes()
