"""A file written for nvcc's two passes, as ccminer's are (programs/twopass/, written in its
style for these tests), runs under the emulator as the device pass reads it: the host
function that calls a __device__ function (swab32 where __CUDA_ARCH__ is defined, a macro
in the host pass) is skipped (a warning says why when the build fails); __syncthreads
redeclared as a function builds; inline PTX in a header is translated; what another file
of the program defines is linked to stand-ins; a one-letter macro (`#define A 64`) does
not break the code appended for a spec; a uint2 target is given by value as its members.
The kernel finds the one nonce that the smallest hash of the range (a Python model of it)
meets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner
from hfuse_helpers import PROGRAMS

from cudafuse.cli import main
from cudafuse.runtime.spec import load_spec
from cudafuse.runtime.spec_values import make_value

TWOPASS = PROGRAMS / "twopass"
M = 0xFFFFFFFF


def _hashes(data: np.ndarray, start: int, count: int) -> list[int]:
    first = [int.from_bytes(((n * 0x9E3779B9) & M).to_bytes(4, "little"), "big")
             ^ int(data[n & 3]) for n in range(start, start + count)]
    return [h ^ ((first[(i // 128) * 128 + (i % 128 + 1) % 128] * 0x85EBCA6B) & M)
            for i, h in enumerate(first)]


def test_device_pass_view_finds_the_one_nonce(tmp_path: Path) -> None:
    spec = load_spec(str(TWOPASS / "scan.toml"))
    hashes = _hashes(make_value(spec.symbols[0]), 5000, 256)
    best = min(hashes)
    assert hashes.count(best) == 1
    toml = tmp_path / "scan.toml"
    toml.write_text((TWOPASS / "scan.toml").read_text().replace(
        "value = [0, 0]", f"value = [{best}, {best >> 16}]"))
    res = CliRunner().invoke(main, ["run", str(TWOPASS / "scan.cu"), "--spec", str(toml),
                                    "-I", str(TWOPASS), "--save", str(tmp_path / "o.npz")],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert list(np.load(tmp_path / "o.npz")["resNonce"]) == [5000 + hashes.index(best)]
