"""hfuse --profile on kernels that take a struct by value the pair spec gives as an array
(`tensor = { sizes, strides }`: PyTorch's PackedTensorAccessor / TensorInfo). Every
profiled program is run through a host function appended to it (profile/structs.py) that
builds the structs and calls the launcher; the launcher itself cannot take the arrays.

The kernels: tests/hfuse/programs/structs/views.cu (a TensorInfo-style struct without a
constructor over a column-major view, an accessor built by its constructor), fused as
hfuse emits them; outputs checked against numpy, not only against another run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.profile.structs import WRAPPER, namespaces, wrapped_program
from cudafuse.runtime.spec import load_spec

STRUCTS = Path(__file__).resolve().parents[1] / "hfuse" / "programs" / "structs"
VIEWS = STRUCTS / "views.cu"
KERNELS = ("row_sums", "scale_view<float>")


def _hfused(tmp_path: Path, mode: str) -> Path:
    out = tmp_path / f"{mode}.cu"
    res = CliRunner().invoke(main, ["hfuse", str(VIEWS), "--kernels", ",".join(KERNELS),
                                    "--block1", "64", "--block2", "128", "--mode", mode,
                                    "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def _want(x: np.ndarray, a: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    out = np.full(74, -7, np.float32)
    out[0::2] = x.reshape(5, 37).T.sum(axis=1, dtype=np.float32) * 2  # dims = 2
    return out, (1.5 * a.reshape(9, 13)).T.reshape(-1)


def test_a_program_without_views_is_left_as_it_is() -> None:
    spec = load_spec(str(Path(__file__).resolve().parents[2] / "samples" / "hfuse" /
                          "im2col.toml"))
    assert wrapped_program(b"int x;\n", "k_launch", [spec, spec], ("a", "b")) == \
        (b"int x;\n", "k_launch")
    assert namespaces("at::native::k<at::cuda::T, 2>") == "at::native"
    assert namespaces("::k<float>") == ""


def test_the_wrapped_fused_launcher_builds_the_structs(tmp_path: Path) -> None:
    """One emulator build: the thread-mode fused program, called as --profile calls it
    (both specs' arrays, the two grids, smem, stream) through the appended function."""
    from cudafuse.runtime import load

    spec1, spec2 = (load_spec(str(STRUCTS / n)) for n in ("row_sums.toml", "scale_view.toml"))
    fused = _hfused(tmp_path, "thread")
    source, launcher = wrapped_program(fused.read_bytes(), "row_sums_scale_view_hfused_launch",
                                       [spec1, spec2], KERNELS)
    assert launcher == WRAPPER
    path = tmp_path / "wrapped.cu"
    path.write_bytes(source)
    v1, v2 = spec1.inputs(), spec2.inputs()
    x, a = v1[0].copy(), v2[0].copy()
    with load(str(path), backend="emu") as lib:
        lib.call(launcher, *v1, *v2, (1, 1, 1), (1, 1, 1), 0, 0, None)
    want_out, want_b = _want(x, a)
    np.testing.assert_allclose(v1[1], want_out, rtol=1e-6)
    np.testing.assert_array_equal(v2[1], want_b)


def test_every_profiled_program_runs_through_the_wrapper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """profile_pair hands measure_programs the baselines and candidates with the function
    that builds the structs appended, and that function as their launcher (nothing built)."""
    from cudafuse.profile import hfuse_profile
    from cudafuse.profile.candidates import CandidateOptions
    from cudafuse.profile.measure import Target
    from cudafuse.profile.pairspec import load_pair_spec

    pair = tmp_path / "pair.toml"
    pair.write_text(f'spec1 = "{STRUCTS / "row_sums.toml"}"\ngrid1 = [1]\nblock1 = [64]\n'
                    f'spec2 = "{STRUCTS / "scale_view.toml"}"\ngrid2 = [1]\nblock2 = [128]\n')
    seen = []

    class Stop(Exception):
        pass

    def measure(programs, *_a, **_k):  # type: ignore[no-untyped-def]
        seen.extend(programs)
        raise Stop

    monkeypatch.setattr(hfuse_profile, "measure_programs", measure)
    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)
    with pytest.raises(Stop):
        hfuse_profile.profile_pair(
            emit=lambda mode, cand: (f"// {mode}\n".encode(), f"lib::{mode}_fused"),
            options=CandidateOptions(64, 128), pair=load_pair_spec(str(pair)),
            target=Target("emu"), files=(str(VIEWS), str(VIEWS)),
            displays=list(KERNELS), qualified=["lib::row_sums", "lib::scale_view<float>"],
            margin=0.0)
    assert [p.record.id for p in seen][:2] == ["streams", "sequential"] and len(seen) >= 4
    for p in seen:
        assert p.launcher == WRAPPER
        text = p.source.decode()
        assert text.startswith(f"// {p.record.kind}\n")
        assert "using namespace ::lib;" in text and \
            f"decltype(&lib::{p.record.kind}_fused_launch)" in text
        # Both specs' views: the accessors are built over the arrays' pointers.
        assert text.count("cudafuse_tensor<") == 4


@pytest.mark.slow  # four emulator builds and hfuse --profile's whole run
def test_profile_times_struct_kernels_under_the_emulator(tmp_path: Path) -> None:
    pair = tmp_path / "pair.toml"
    pair.write_text(f'kernel1 = "row_sums"\nspec1 = "{STRUCTS / "row_sums.toml"}"\n'
                    'grid1 = ["(rows + 63) / 64"]\nblock1 = [64]\nshared1 = 0\n'
                    f'kernel2 = "scale_view<float>"\nspec2 = "{STRUCTS / "scale_view.toml"}"\n'
                    'grid2 = ["(r * c + 127) / 128"]\nblock2 = [128]\nshared2 = 0\n')
    report = tmp_path / "report.json"
    res = CliRunner().invoke(main, [
        "hfuse", str(VIEWS), "--kernels", ",".join(KERNELS), "--block1", "64", "--block2",
        "128", "--profile", "--spec", str(pair), "--backend", "emu", "--no-cache",
        "--split-step", "1024", "-o", str(tmp_path / "out.cu"), "--report", str(report)],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    doc = json.loads(report.read_text())
    timed = {c["id"] for c in doc["candidates"] if c.get("timing")}
    # The baselines and both modes at the native sizes ran, were verified and timed.
    assert {"streams", "sequential"} <= timed
    assert any(i.startswith("thread:64+128") for i in timed)
    assert any(i.startswith("block:64+128") for i in timed)
    assert all(c.get("verified") is not False for c in doc["candidates"])


@pytest.mark.slow  # ATen's files: 15-25 s an emulator build, about 8 builds (134 s here)
def test_the_paper_pair_of_two_accessor_kernels_is_profiled_under_the_emulator(
        tmp_path: Path) -> None:
    """The rehearsal of the GPU session's ATen pair upsample + batch norm, both kernels
    taking PackedTensorAccessors by value: every program built, verified and timed."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    cache = root / ".device-cache"
    if not (cache / "aoli-al+TorchKernel" / "cuda" / "Normalization.cuh").exists():
        pytest.skip("no .device-cache with ATen's files (gpu_session.py --prepare)")
    rows = tmp_path / "rows.jsonl"
    res = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_hfuse.py"),
                          "--paper", "aten", "--cache", str(cache), "--backend", "emu",
                          "--no-calibrate", "--split-step", "1024", "--pairs",
                          "upsample+batchnorm", "--jsonl", str(rows)],
                         capture_output=True, text=True, timeout=1200)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    rec = json.loads(rows.read_text().splitlines()[-1])
    cands = rec["report"]["candidates"]
    assert {"streams", "sequential"} <= {c["id"] for c in cands if c.get("timing")}
    assert any(c["id"].startswith(("thread:", "block:")) and c.get("timing") for c in cands)
    assert all(c.get("verified") is not False for c in cands)


def test_a_spec_setting_symbols_is_refused_by_profile(tmp_path: Path) -> None:
    # [[symbols]] would be set by copies timed with the launch, or left unset (other
    # inputs than the spec's): refused, at the spec, before anything is built.
    symbols = STRUCTS.parent / "symbols"
    pair = tmp_path / "pair.toml"
    pair.write_text("".join(f'kernel{i} = "scan_{k}"\nspec{i} = "{symbols / f"scan_{k}.toml"}"\n'
                            f"grid{i} = [3]\nblock{i} = [128]\n"
                            for i, k in ((1, "a"), (2, "b"))))
    res = CliRunner().invoke(main, [
        "hfuse", str(symbols / "scan_a.cu"), str(symbols / "scan_b.cu"), "--block1", "128",
        "--block2", "128", "--profile", "--spec", str(pair), "--backend", "emu",
        "--no-cache", "-o", str(tmp_path / "out.cu")])
    assert res.exit_code == 2, res.output
    assert f"{symbols / 'scan_a.toml'}: error: the run spec of scan_a sets [[symbols]] " \
        "(d_data, c_rot)" in res.output
    assert not (tmp_path / "out.cu").exists()
