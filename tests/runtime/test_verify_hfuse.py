"""`cudafuse verify --hfuse A.cu B.cu FUSED.cu`: an hfuse output checked against its two
original kernels, end to end on a pair of samples/hfuse/pairs.toml."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from cudafuse.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "hfuse"
PAIR = "batchnorm_stats+histogram"
A, B = SAMPLES / "batchnorm_stats.cu", SAMPLES / "histogram.cu"
NO_MAIN = ("-D", "CUDAFUSE_NO_MAIN")


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hfuse") / "fused.cu"
    res = invoke("hfuse", A, B, "--kernels", "batchnorm_stats_kernel,histogram_kernel",
                 "--block1", "512", "--block2", "256", *NO_MAIN, "-o", out)
    assert res.exit_code == 0, res.output
    return out


def test_pair_spec(fused):
    res = invoke("verify", "--hfuse", A, B, fused, "--spec", SAMPLES / "pairs.toml",
                 "--pair", PAIR, *NO_MAIN)
    assert res.exit_code == 0, res.output
    for out in ("batchnorm_stats_kernel.mean", "batchnorm_stats_kernel.var",
                "histogram_kernel.hist"):
        assert f"{out}: max abs err 0, max rel err 0: ok" in res.stdout
    assert f"{fused}: all outputs match {A} and {B}" in res.stdout
    assert res.stderr == ""


def _kernel_spec(tmp_path: Path, sample: str, kernel: str, launch: str) -> Path:
    text = (SAMPLES / f"{sample}.toml").read_text()
    text = text.replace(f'entry = "{sample}_run"', f'entry = "{kernel}"')
    spec = tmp_path / f"{sample}.toml"
    spec.write_text(text + "\n[launch]\n" + launch)
    return spec


def test_kernel_specs_and_a_wrong_fusion(fused, tmp_path):
    s1 = _kernel_spec(tmp_path, "batchnorm_stats", "batchnorm_stats_kernel",
                      'grid = ["c"]\nblock = [512]\n')
    s2 = _kernel_spec(tmp_path, "histogram", "histogram_kernel",
                      'grid = ["min((n + 255) / 256, 64)"]\nblock = [256]\nshared = "nbins * 4"\n')
    res = invoke("verify", "--hfuse", A, B, fused, "--spec1", s1, "--spec2", s2, *NO_MAIN)
    assert res.exit_code == 0, res.output
    assert "histogram_kernel.hist: max abs err 0, max rel err 0: ok" in res.stdout
    # A fused kernel whose second copy of the first kernel's store is wrong.
    text = fused.read_text()
    at = text.rindex("mean[ch] = (float)m;")
    bad = tmp_path / "bad.cu"
    bad.write_text(text[:at] + "mean[ch] = (float)m + 1.0f;" + text[at + 20:])
    res = invoke("verify", "--hfuse", A, B, bad, "--spec1", s1, "--spec2", s2, *NO_MAIN)
    assert res.exit_code == 1, res.output
    assert "batchnorm_stats_kernel.mean: max abs err 1, " in res.stdout
    assert "MISMATCH in 8 of 8" in res.stdout
    assert "histogram_kernel.hist: max abs err 0, max rel err 0: ok" in res.stdout
    assert f"{bad}: outputs differ from {A} and {B}" in res.stderr


def test_a_spec_too_small_for_an_original(fused, tmp_path):
    s1 = _kernel_spec(tmp_path, "batchnorm_stats", "batchnorm_stats_kernel",
                      'grid = ["c"]\nblock = [512]\n')
    s1.write_text(s1.read_text().replace('count = "c"\ninit = "zeros"\nrole = "out"',
                                         'count = "c - 1"\ninit = "zeros"\nrole = "out"', 1))
    s2 = _kernel_spec(tmp_path, "histogram", "histogram_kernel",
                      'grid = ["min((n + 255) / 256, 64)"]\nblock = [256]\nshared = "nbins * 4"\n')
    res = invoke("verify", "--hfuse", A, B, fused, "--spec1", s1, "--spec2", s2, *NO_MAIN)
    assert res.exit_code == 1, res.output
    assert "error: kernel 'batchnorm_stats_kernel'" in res.stderr
    assert "writes 'mean' at index 7, past the end of its 7 elements" in res.stderr
    assert "args[1] 'mean'.count is 7 (float32)" in res.stderr
    assert "the original kernel 'batchnorm_stats_kernel' fails with its spec, so the fused " \
        "program was not checked" in res.stderr
    assert "match" not in res.stdout


@pytest.mark.parametrize("args,needle", [
    (["verify", "--hfuse", A, B, "--spec", "x.toml"], "verify --hfuse takes A.cu B.cu FUSED.cu"),
    (["verify", "--hfuse", A, B, A, "--spec", "p.toml", "--spec1", "a.toml"],
     "give --spec PAIR.toml or --spec1 and --spec2, not both"),
    (["verify", "--hfuse", A, B, A, "--spec1", "a.toml"], "or both --spec1 and --spec2"),
    (["verify", A, B, "--spec1", "a.toml"], "--spec1 is for --hfuse"),
    (["verify", A, B, A, "--spec", "x.toml"], "verify takes ORIGINAL and TRANSFORMED"),
    (["verify", A, B], "missing option '--spec'"),
])
def test_usage_errors(args, needle):
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    assert needle in res.stderr


def test_a_file_without_the_launcher(tmp_path):
    res = invoke("verify", "--hfuse", A, B, B, "--spec", SAMPLES / "pairs.toml", "--pair", PAIR,
                 *NO_MAIN)
    assert res.exit_code == 1, res.output
    assert (f"{B}: error: no launcher 'batchnorm_stats_kernel_histogram_kernel_hfused_launch' "
            "(what `cudafuse hfuse` writes for batchnorm_stats_kernel and histogram_kernel); "
            "the file has none") in res.stderr, res.stderr
