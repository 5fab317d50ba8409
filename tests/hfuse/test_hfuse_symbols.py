"""Run specs that set a program's __device__/__constant__ arrays before the kernel runs
([[symbols]], as ccminer's host code does with cudaMemcpyToSymbol), and a nonce scan whose
racing result writes are not exercised: the target is the smallest hash of the range, which
exactly one nonce meets (tests/hfuse/programs/symbols/, in ccminer's style). Both files
define `d_data` and `c_rot`: in the fused file the second's are renamed apart, and verify
--hfuse sets them by their new names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hfuse_helpers import PROGRAMS, hfuse

from cudafuse.cli import main
from cudafuse.runtime.spec import load_spec
from cudafuse.runtime.spec_values import make_value

SYMBOLS = PROGRAMS / "symbols"
M = 0xFFFFFFFF


def _hash(nonce: int, data: np.ndarray, rot: np.ndarray, b: bool) -> int:
    h = (nonce * (0x7FEB352D if b else 0x9E3779B9)) & M
    for i in range(8):
        h = (h + (int(data[i]) ^ i)) & M if b else h ^ int(data[i])
        r = int(rot[i & 3])
        h = ((h << r) | (h >> (32 - r))) & M
        h = (h * (0xC2B2AE35 if b else 0x85EBCA6B)) & M
    return h


def _spec(tmp_path: Path, kernel: str) -> tuple[Path, int]:
    """The kernel's spec with the target that exactly one nonce meets, and that nonce."""
    src = SYMBOLS / f"{kernel}.toml"
    spec = load_spec(str(src))
    data, rot = (make_value(s) for s in spec.symbols)
    start = spec.args[1].value
    hashes = [_hash(start + t, data, rot, kernel == "scan_b") for t in range(300)]
    best = min(hashes)
    assert hashes.count(best) == 1
    out = tmp_path / src.name
    out.write_text(src.read_text().replace("value = 0\n", f"value = {best}\n"))
    return out, start + hashes.index(best)


def test_symbols_are_parsed_as_arrays() -> None:
    spec = load_spec(str(SYMBOLS / "scan_a.toml"))
    assert [(s.name, s.count, str(s.dtype)) for s in spec.symbols] == [
        ("d_data", 8, "uint32"), ("c_rot", 4, "uint32")]
    assert all(1 <= v <= 31 for v in make_value(spec.symbols[1]))


@pytest.mark.slow  # an emulator build
def test_run_sets_the_symbols_and_finds_the_one_nonce(tmp_path: Path) -> None:
    spec, nonce = _spec(tmp_path, "scan_a")
    res = CliRunner().invoke(main, ["run", str(SYMBOLS / "scan_a.cu"), "--spec", str(spec),
                                    "--save", str(tmp_path / "o.npz")], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert list(np.load(tmp_path / "o.npz")["resNonce"]) == [nonce, M]


@pytest.mark.slow  # three emulator builds
@pytest.mark.parametrize("mode", ["thread", "block"])
def test_verify_hfuse_sets_each_files_symbols(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "f.cu"
    res = hfuse(str(SYMBOLS / "scan_a.cu"), str(SYMBOLS / "scan_b.cu"), "--block1", "128",
                "--block2", "128", "--mode", mode, "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "cf_in2_d_data" in out.read_text()
    (spec_a, _), (spec_b, _) = _spec(tmp_path, "scan_a"), _spec(tmp_path, "scan_b")
    res = CliRunner().invoke(main, [
        "verify", "--hfuse", str(SYMBOLS / "scan_a.cu"), str(SYMBOLS / "scan_b.cu"),
        str(out), "--spec1", str(spec_a), "--spec2", str(spec_b)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "scan_b.resNonce: max abs err 0" in res.output
