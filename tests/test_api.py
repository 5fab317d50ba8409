"""The Python API (cudafuse.analyze / fuse / hfuse): the CLI's passes, returned instead of
written, and one exception type for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import cudafuse
from cudafuse.cli import main
from cudafuse.passes import REGISTRY, run_pass

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_analyze_returns_the_json_report() -> None:
    a = cudafuse.analyze(str(SAMPLES / "blur.cu"))
    assert [k["name"] for k in a.report["kernels"]][:2] == ["blur_h", "blur_v"]
    assert a.report["host_functions"][0]["name"] == "blur_pipeline"
    assert "blur_h" in a.text and a.diagnostics == []


def test_fuse_text_and_report_are_what_the_cli_writes(tmp_path: Path) -> None:
    # (sobel: fused by the cost model; blur's two 5-tap passes are not since its
    # calibration, docs/cost-model.md)
    fused = cudafuse.fuse(str(SAMPLES / "sobel.cu"))
    out, report = tmp_path / "f.cu", tmp_path / "r.json"
    res = CliRunner().invoke(main, ["fuse", str(SAMPLES / "sobel.cu"), "-o", str(out),
                                    "--report", str(report)])
    assert res.exit_code == 0, res.output
    assert fused.changed
    assert fused.text == out.read_text()
    assert fused.report == json.loads(report.read_text())
    assert fused.explain.startswith("sobel_pipeline: 3 launches")
    assert fused.inputs[0] == str(SAMPLES / "sobel.cu")


def test_fuse_options_reach_the_pass() -> None:
    never = cudafuse.fuse(str(SAMPLES / "canny.cu"), tiles="never", fuse_all=True)
    always = cudafuse.fuse(str(SAMPLES / "canny.cu"), tiles="always", fuse_all=True)
    assert never.text != always.text and "__shared__" in always.text


def test_fuse_with_nothing_to_fuse_warns(tmp_path: Path) -> None:
    src = tmp_path / "one.cu"
    src.write_text("__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }\n"
                   "void host(float *a) { k<<<1, 32>>>(a); }\n")
    fused = cudafuse.fuse(str(src))
    assert not fused.changed and fused.text == src.read_text()
    assert any("nothing to fuse" in d.message for d in fused.diagnostics)


def test_hfuse_two_files() -> None:
    h = cudafuse.hfuse(str(SAMPLES / "hfuse" / "histogram.cu"),
                       str(SAMPLES / "hfuse" / "blake256.cu"), block1=256, block2=128)
    assert h.name == "histogram_kernel_blake256_kernel_hfused"
    assert f") {h.name}(" in h.text and f"void {h.name}_launch(" in h.text
    assert h.report["fused_kernel"] == h.name and h.report["threads_per_block"] == 384
    assert any("defined in both inputs" in d.message for d in h.diagnostics)
    assert h.inputs[:2] == [str(SAMPLES / "hfuse" / "histogram.cu"),
                            str(SAMPLES / "hfuse" / "blake256.cu")]


def test_bad_input_raises_one_located_error(tmp_path: Path) -> None:
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void k(float *a) {\n  a[0] = undeclared;\n}\n")
    for call in (cudafuse.analyze, cudafuse.fuse):
        with pytest.raises(cudafuse.Error) as info:
            call(str(src))
        first = info.value.diagnostics[0]
        assert (first.file, first.line, first.severity.value) == (str(src), 2, "error")
        assert info.value.status == 1


def test_an_error_keeps_the_warnings_given_before_it() -> None:
    # The second file's `main` is renamed apart (a note), then the blocks are refused: 1024 +
    # 256 threads is more than a block holds. (A part over its kernel's own __launch_bounds__
    # is no error since 312bec9: it runs under the fused kernel's bound.)
    with pytest.raises(cudafuse.Error) as info:
        cudafuse.hfuse(str(SAMPLES / "hfuse" / "histogram.cu"),
                       str(SAMPLES / "hfuse" / "blake256.cu"), block1=1024, block2=256)
    kinds = [d.severity.value for d in info.value.diagnostics]
    assert kinds[0] == "note" and kinds[-1] == "error"
    assert "1280 threads (1024 + 256); a block has at most 1024" in str(info.value)


def test_bad_options_are_usage_errors() -> None:
    for kwargs in ({"partition": "best"}, {"tiles": "sometimes"}, {"block": (64, 64)}):
        with pytest.raises(cudafuse.Error) as info:
            cudafuse.fuse(str(SAMPLES / "blur.cu"), **kwargs)
        assert info.value.status == 2
    with pytest.raises(TypeError):
        cudafuse.fuse(str(SAMPLES / "blur.cu"), include_dirs="include")


def test_every_pass_is_found_in_the_registry() -> None:
    assert sorted(REGISTRY) == ["horizontal", "vertical"]
    for info in REGISTRY.values():
        assert callable(info.load())
    with pytest.raises(KeyError, match="passes: horizontal, vertical"):
        run_pass("diagonal", [], None)


def test_the_build_script_of_the_docs_runs(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    doc = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    script = next(c for c in re.findall(r"```python\n(.*?)```", doc, re.S) if "def main" in c)
    (tmp_path / "build.py").write_text(script)
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    (src / "blur.cu").write_bytes((SAMPLES / "blur.cu").read_bytes())
    (src / "bad.cu").write_text("__global__ void k() { undeclared(); }\n")
    proc = subprocess.run([sys.executable, str(tmp_path / "build.py"), str(src), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert f"{src / 'bad.cu'}:1:" in proc.stderr and "error:" in proc.stderr
    assert (out / "blur.cu").read_text() == cudafuse.fuse(str(src / "blur.cu")).text


def test_launches_in_code_not_analysed_are_named(tmp_path: Path) -> None:
    src = tmp_path / "cls.cu"
    src.write_text(
        "__global__ void a(float *y, int n) { int i = threadIdx.x; if (i < n) y[i] = 2; }\n"
        "__global__ void b(const float *y, float *z, int n) {\n"
        "  int i = threadIdx.x; if (i < n) z[i] = y[i] + 1; }\n"
        "// k<<<1, 1>>>() in a comment and in a macro are not launches of this file's code\n"
        "#define LAUNCH(k, ...) k<<<1, 32>>>(__VA_ARGS__)\n"
        "template <class T> struct Solver {\n  T *y, *z; int n;\n  void run();\n};\n"
        "template <class T> void Solver<T>::run() {\n  a<<<1, 32>>>(y, n);\n"
        "  b<<<1, 32>>>(y, z, n);\n}\n"
        "void host(float *y, float *z, int n) { a<<<1, 32>>>(y, n); b<<<1, 32>>>(y, z, n); }\n")
    fused = cudafuse.fuse(str(src))
    notes = [d for d in fused.diagnostics if "does not analyse" in d.message]
    assert [(d.line, d.message.split(" kernel")[0]) for d in notes] == [(11, "2")]
    # A member function of a plain class is a host function of its own (Solver::run).
    src.write_text(src.read_text().replace("template <class T> ", "").replace("T *y", "float *y")
                   .replace("Solver<T>::", "Solver::"))
    fused = cudafuse.fuse(str(src))
    assert not [d for d in fused.diagnostics if "does not analyse" in d.message]
    assert {p.host for p in fused.result.plans} == {"Solver::run", "host"}
    assert not [d for d in cudafuse.fuse(str(src)).diagnostics
                if "does not analyse" in d.message]
