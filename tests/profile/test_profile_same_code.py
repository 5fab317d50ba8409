"""The regression of the H200's second run: batchnorm_stats+histogram fused at 512+512
threads under __maxnreg__(40) was 1.5x faster than uncapped (0.44 ms against 0.67), and an
occupancy rule ("no cap can buy a block here") left it uncompiled and untimed. Now every cap
is compiled, and only a cap whose machine code is its twin's is folded
(profile.compiled.merge_same, analysis.cubin)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from cudafuse.analysis.cubin import code_digests, sections

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
SPLIT = "thread:512+512"


def _pair_emitter():
    from cudafuse.cli.hfuse import candidate_setup
    from cudafuse.frontend import ParseOptions
    from cudafuse.passes.horizontal.inputs import resolve_inputs

    inputs = resolve_inputs((str(SAMPLES / "batchnorm_stats.cu"), str(SAMPLES / "histogram.cu")),
                            "batchnorm_stats_kernel,histogram_kernel", "512", "256",
                            ParseOptions(defines=("CUDAFUSE_NO_MAIN",)), [])
    return candidate_setup(inputs, 128)


@pytest.mark.nvcc
def test_a_cap_with_other_code_is_kept_and_one_with_the_same_code_names_its_twin() -> None:
    from cudafuse.analysis.ptxas import compile_figures
    from cudafuse.profile.candidates import Candidate
    from cudafuse.profile.compiled import compiled_records

    options, emit_config = _pair_emitter()
    sources: dict[str, bytes] = {}

    def emit(c: Candidate) -> tuple[bytes, str]:
        source, name = emit_config(c.mode, c)
        sources[c.id] = source
        return source, name

    wanted = {f"{SPLIT}:rnone", f"{SPLIT}:r32", f"{SPLIT}:r40"}
    records = compiled_records(options, emit, (str(SAMPLES / "batchnorm_stats.cu"),
                                               str(SAMPLES / "histogram.cu")),
                               ("batchnorm_stats_kernel", "histogram_kernel"), "sm_90",
                               defines=("CUDAFUSE_NO_MAIN",), only=lambda c: c.id in wanted,
                               left_out="not asked for")
    by_id = {r.id: r for r in records}
    base, r32, r40 = (by_id[f"{SPLIT}:{c}"] for c in ("rnone", "r32", "r40"))
    assert set(sources) == wanted
    codes = {}
    for ident, source in sources.items():  # compiled above: from the ptxas cache
        got = compile_figures(source, "sm_90", ("-DCUDAFUSE_NO_MAIN",), code=True)
        assert not isinstance(got, str), got
        codes[ident] = got["batchnorm_stats_kernel_histogram_kernel_hfused"].code
    # nvcc 13, sm_90: ptxas takes 31 registers without a cap (the threads, not the
    # registers, limit it to 2 blocks per SM) and 37 under __maxnreg__(40), one block per
    # SM: the occupancy rule called this cap dominated. Its code differs: it is timed.
    assert (base.registers, r40.registers) == (31, 37), (base, r40)
    assert base.occupancy is not None and base.occupancy.limit == "threads"
    assert codes[r40.id] != codes[base.id]
    assert r40.skip is None and r40.same_as is None
    # __maxnreg__(32) leaves ptxas's allocation as it was: the same code, folded, and the
    # reason names the twin and the digest both compiled to.
    assert codes[r32.id] == codes[base.id]
    assert r32.same_as == base.id and r32.registers == 31
    assert r32.skip == (f"register cap 32: compiled to the same code as {base.id} (machine "
                        f"code sha256 {codes[base.id][:12]}, 31 registers, 0 spill bytes): "
                        "one program, not timed twice")


def _elf(named: dict[str, bytes]) -> bytes:
    """A little-endian ELF64 file holding `named` sections (and the names' table)."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in [*named, ".shstrtab"])
    blobs = [*named.values(), names]
    offsets, body = [], b""
    for blob in blobs:
        offsets.append(64 + len(body))
        body += blob
    shoff = 64 + len(body)
    head = b"\x7fELF\x02\x01" + bytes(34) + struct.pack("<Q", shoff) + bytes(10) + \
        struct.pack("<HHH", 64, len(blobs) + 1, len(blobs))
    head = head.ljust(64, b"\0")
    table, at = [bytes(64)], 1
    for i, blob in enumerate(blobs):
        table.append(struct.pack("<IIQQQQIIQQ", at, 1, 0, 0, offsets[i], len(blob), 0, 0, 1, 0))
        at += len([*named, ".shstrtab"][i]) + 1
    return head + body + b"".join(table)


def test_code_digests_read_the_text_sections_and_the_helpers_they_may_call() -> None:
    one = _elf({".text.k": b"\x01\x02", ".text.other": b"\x09", ".nv.info.k": b"cap 40"})
    assert sections(one)[".text.k"] == b"\x01\x02"
    # The cap is written in .nv.info, not in the code: left out of the digest.
    same = _elf({".text.k": b"\x01\x02", ".text.other": b"\x09", ".nv.info.k": b"cap 48"})
    assert code_digests(one, ["k", "other"]) == code_digests(same, ["k", "other"])
    other = _elf({".text.k": b"\x01\x03", ".text.other": b"\x09"})
    assert code_digests(one, ["k"])["k"] != code_digests(other, ["k"])["k"]
    # A device function (not an entry) is part of every entry's code; another entry is not.
    helper = _elf({".text.k": b"\x01\x02", ".text.other": b"\x0a"})
    assert code_digests(one, ["k"])["k"] != code_digests(helper, ["k"])["k"]
    assert code_digests(one, ["k", "other"])["k"] == code_digests(helper, ["k", "other"])["k"]
    # Not an ELF file, or cut short: no sections, no digests.
    assert sections(b"junk") == {} and code_digests(one[:100], ["k"]) == {}


def _cuobjdump() -> str | None:
    """cuobjdump from the toolkit, or from PyPI's nvidia-cuda-cuobjdump (the dev extra)."""
    found = shutil.which("cuobjdump")
    spec = importlib.util.find_spec("nvidia")
    roots = (spec.submodule_search_locations or []) if spec and not found else []
    return found or next((str(p) for r in roots for p in sorted(Path(r).glob(
        "cu*/bin/cuobjdump"))), None)


@pytest.mark.nvcc
@pytest.mark.slow
def test_code_digests_agree_with_the_sass(tmp_path: Path) -> None:
    """Equal digests exactly where cuobjdump's SASS of the fused kernel is equal (rnone and
    r32), and different ones where it differs (r40, r48: 37 registers each, two
    schedules)."""
    from cudafuse.profile.candidates import Candidate

    tool = _cuobjdump()
    if tool is None:
        pytest.skip("cuobjdump not found (pip install nvidia-cuda-cuobjdump "
                    "nvidia-cuda-nvdisasm, the dev extra)")
    _, emit = _pair_emitter()
    sass, digests = {}, {}
    for cap in (None, 32, 40, 48):
        source, name = emit("thread", Candidate("thread", 512, 512, cap))
        src, cubin = tmp_path / f"r{cap}.cu", tmp_path / f"r{cap}.cubin"
        src.write_bytes(source)
        res = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-Xptxas", "-v",
                              "-DCUDAFUSE_NO_MAIN", str(src), "-o", str(cubin)],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        data = cubin.read_bytes()
        symbol = next(n[len(".text."):] for n in sections(data)
                      if n.startswith(".text.") and name in n)
        digests[cap] = code_digests(data, [symbol])[symbol]
        env = {**os.environ, "PATH": f"{Path(tool).parent}{os.pathsep}{os.environ['PATH']}"}
        res = subprocess.run([tool, "-sass", "-fun", symbol, str(cubin)], capture_output=True,
                             text=True, timeout=120, env=env)  # nvdisasm beside it
        assert res.returncode == 0 and "Function" in res.stdout, res.stderr
        sass[cap] = res.stdout
    assert sass[None] == sass[32] and digests[None] == digests[32]
    for a, b in ((None, 40), (40, 48)):
        assert sass[a] != sass[b] and digests[a] != digests[b]


@pytest.mark.nvcc
def test_a_cached_entry_without_code_digests_is_compiled_again_when_they_are_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import json

    from cudafuse.analysis import ptxas

    monkeypatch.setenv("CUDAFUSE_CACHE_DIR", str(tmp_path))
    source = b"__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n"
    # An entry as the cache held before digests were kept: figures only, and false ones,
    # so that a recompile shows.
    key = hashlib.sha256(json.dumps([ptxas.CACHE_FORMAT, "sm_90", [], ptxas.nvcc_version()])
                         .encode() + b"\0" + source).hexdigest()
    (tmp_path / "ptxas").mkdir()
    (tmp_path / "ptxas" / f"{key}.json").write_text(json.dumps(
        {"k": {"registers": 99, "static_shared": 0, "spill_stores": 0, "spill_loads": 0}}))
    old = ptxas.compile_figures(source, "sm_90")
    assert not isinstance(old, str) and old["k"].registers == 99 and old["k"].code == ""
    got = ptxas.compile_figures(source, "sm_90", code=True)
    assert not isinstance(got, str) and got["k"].registers < 99 and len(got["k"].code) == 64
    again = ptxas.compile_figures(source, "sm_90", code=True)  # stored with its digest
    assert not isinstance(again, str) and again["k"].code == got["k"].code
