"""A worker killed by SIGFPE is explained: the host traps on an integer division by zero (a
book's AoS exercise divides by members of a cudaMalloc buffer it never writes, zero here),
where a GPU's kernel goes on with an unspecified value (issue 31)."""

from __future__ import annotations

import signal

from cudafuse.runtime.emu_exec import _status


def test_sigfpe_names_integer_division() -> None:
    text = _status(-signal.SIGFPE)
    assert text.startswith("the program crashed with SIGFPE (an integer division by zero")
    assert "GPU" in text and "nothing wrote" in text


def test_other_signals_keep_their_hints() -> None:
    assert "out-of-bounds access" in _status(-signal.SIGSEGV)
    assert "division" not in _status(-signal.SIGABRT)
    assert _status(3) == "the emulation worker exited with status 3"
