"""analyze reports the shared memory a kernel reaches outside its body, and through what."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cudafuse.cli import main

PROGRAMS = Path(__file__).parents[1] / "hfuse" / "programs"


def _shared(path: Path) -> dict[str, list[dict]]:
    res = CliRunner().invoke(main, ["analyze", str(path), "--format", "json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return {k["name"]: k["shared"] for k in json.loads(res.output)["kernels"]}


def test_every_access_path_is_reported() -> None:
    shared = _shared(PROGRAMS / "shared_paths.cu")
    via = {k: {(s["name"], s["dynamic"], s["via"]) for s in v} for k, v in shared.items()}
    # cuda-samples' SharedMemory<T>: the conversion operators of the template and of its
    # double specialisation (a template kernel: the conversion is not resolved yet).
    assert ("__smem", True, "'SharedMemory::operator T *'") in via["reduce"]
    assert ("__smem_d", True, "'SharedMemory::operator double *'") in via["reduce"]
    assert ("__smem", True, "'SharedMemory::operator T *'") in via["reverse_sm"]
    assert ("s_buf", True, "'SmemBuf::getPointer'") in via["rotate_ptr"]
    assert ("s_f", True, "helper 'dyn_floats'") in via["shift_helper"]  # through scratch()
    assert ("g_dyn", True, "helper 'global_buf'") in via["shift_global"]
    assert ("__smem_d", True, "'SharedMemory::operator double *'") in via["reverse_macro"]
    assert ("cache", False, "'StaticCache::get'") in via["cached_sum"]
    assert ("s_m", True, "helper 'macro_buf'") in via["macro_helper"]


def test_header_and_alias_paths() -> None:
    shared = _shared(PROGRAMS / "shared_refusals.cu")
    assert [(s["name"], s["type"], s["via"]) for s in shared["from_header"]] == [
        ("HeaderSmem", "?", f"header {PROGRAMS / 'smem_header.cuh'}")]
    assert [s["name"] for s in shared["via_typedef"]] == ["__asmem"]  # typedef FloatSmem


def test_text_report_names_the_path(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["analyze", str(PROGRAMS / "shared_paths.cu")],
                             catch_exceptions=False)
    assert "shared: s_buf: T dynamic (via 'SmemBuf::getPointer')" in res.output
