"""Host helpers that launch and also work on memory of their own (issue 25, session 12;
host/ownmemory.py): scratch buffers allocated, cleared, copied and freed around the launch,
host buffers filled and read, printing, synchronisation, event timers. Nothing they do
touches the buffers the launches share, so the launches fuse across their calls, one level
down or two, the helpers declared in the program's header (kltccp_pyramid's spelling) or
not; each call is written as a copy of its helper where that work stays in order. Refused,
with located reasons: a helper copying the intermediate back to the host after its launch
(made permissive, the copy then reads the intermediate before it is written: the test
sees the mismatch), and one giving its launches a buffer it allocates and frees itself
(cle3_canny's and kltccp_pyramid's shape). Original and fused programs run under
emulation on the same garbage, every element compared, at odd sizes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from equivalence import compare_entry

from cudafuse.api import fuse
from cudafuse.ir import nodes as n
from cudafuse.passes.vertical.host import ownmemory

HERE = Path(__file__).parent / "programs" / "interproc_s12"
PROGRAM = HERE / "own_memory.cu"
HEADER = HERE / "own_stages.cuh"
FUSED = {  # host -> its group's kernels (fuse-all)
    "om_pipeline": ["os_scale", "os_offset"],
    "om_nested": ["os_scale", "os_square", "os_offset"],
    "om_header": ["os_scale", "os_offset"],
    "om_struct_stages": ["os_scale", "os_offset"],  # given a struct's fields (om_struct)
}
ENTRIES = ["om_pipeline", "om_nested", "om_header", "om_struct", "om_copy_back", "om_given"]


def _line(fragment: str) -> int:
    return next(i for i, t in enumerate(PROGRAM.read_text().split("\n"), 1) if fragment in t)


def _fuse_to(folder: Path):
    shutil.copy(HEADER, folder / HEADER.name)  # (the fused file includes it as the .cu does)
    out = folder / PROGRAM.name
    result = fuse(str(PROGRAM), fuse_all=True)
    out.write_text(result.text)
    return out, result


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    return _fuse_to(tmp_path_factory.mktemp("own_memory"))


def test_helpers_with_own_memory_fuse(fused) -> None:
    _, result = fused
    groups = {g.host: g.kernels for g in result.result.groups}
    for host, kernels in FUSED.items():
        assert groups.get(host) == kernels, (host, groups)
    assert "om_copy_back" not in groups and "om_given" not in groups
    # (a helper given a struct whose fields it passes on is not followed from its caller:
    # the launches are fused in the helper, whose parameter the struct is)
    assert "om_struct" not in groups


def _body(text: str, host: str) -> str:
    start = text.index(f"void {host}(")
    return text[start:text.index("\n}\n", start)]


def test_own_work_stays_in_order(fused) -> None:
    path, _ = fused
    text = path.read_text()
    body = _body(text, "om_pipeline")
    order = ["a copy of 'om_stage_scale'", "cudaMalloc(&scratch", "cudaMemset(scratch",
             'printf("om_stage_scale', "os_scale fused into", "cudaDeviceSynchronize();",
             "cudaFree(scratch);", "a copy of 'om_stage_offset'", "malloc(8",
             "cudaMemcpy(d_copy, h", "<<<", "cudaMemcpy(h, d_copy", "cudaFree(d_copy);",
             "free(h);"]
    at = [body.index(x) for x in order]
    assert at == sorted(at), body
    assert "os_offset<<<" not in body and "fused" in body[at[10] - 40:at[10]]
    nested = _body(text, "om_nested")  # (two levels: the outer helper's own buffer too)
    order = ["a copy of 'om_outer'", "cudaMalloc((void **)&w", "a copy of 'om_stage_scale'",
             "cudaFree(scratch);", "cudaMemset(w, 0", "os_square fused into", "cudaFree(w);"]
    at = [nested.index(x) for x in order]
    assert at == sorted(at), nested
    timed = _body(text, "om_header")
    order = ["cudaEventRecord(start);", "os_scale fused into", "cudaEventRecord(stop);",
             "cudaFree(flags);"]
    at = [timed.index(x) for x in order]
    assert at == sorted(at), timed
    assert HEADER.read_text() == (path.parent / HEADER.name).read_text()  # (untouched)


WHY = {
    "om_struct": "'om_struct_stages' passes 'b.in', not one of its parameters, to pointer "
                 "parameter 'in' of 'os_scale'",
    "om_copy_back": f"'om_scale_peek' does more than launch its kernel (line "
                    f"{_line('cudaMemcpy(peek, t')}: its call to 'cudaMemcpy' touches 't', "
                    "which may be a buffer the launch of 'os_scale' at line "
                    f"{_line('cudaMemcpy(peek, t') - 1} uses)",
    "om_given": f"'om_two_scratch' gives its launches 's', a buffer it allocates (line "
                f"{_line('cudaMalloc(&s,')}) and frees (line {_line('cudaFree(s);')}) itself: "
                "it has no name in the caller, where launches are fused across the call, and "
                "a launch of it moved to a later launch of the caller would use it freed",
}


def test_refusals_are_located(fused) -> None:
    _, result = fused
    notes = {h: (line, why) for h, line, _, why in result.result.breaks}
    for host, why in WHY.items():
        line, note = notes[host]
        assert line == _line(f"void {host}(") + (2 if host == "om_struct" else 1), host
        assert note.startswith(f"launches in '{host}' are not fused across this statement: "
                               "its call to "), note
        assert note.endswith(why), (host, note)


@pytest.mark.slow
@pytest.mark.parametrize("size", (37, 1, 129))
@pytest.mark.parametrize("entry", ENTRIES)
def test_fused_matches_original(fused, entry: str, size: int) -> None:
    path, _ = fused
    compare_entry(PROGRAM, path, entry, {"n": size})


@pytest.mark.slow
def test_copy_back_is_a_real_dependence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    """With every memory call taken for the helper's own, the copy of 't' to 'peek' is
    fused across, and 'peek' then holds what 't' held before: the refusal is needed."""
    def permissive(self, stmt: n.Stmt) -> list[n.Call]:
        return [c for c in stmt.walk() if isinstance(c, n.Call) and
                self.touched(c) is not None]

    monkeypatch.setattr(ownmemory.OwnMemory, "calls", permissive)
    path, result = _fuse_to(tmp_path)
    assert {g.host: g.kernels for g in result.result.groups}.get("om_copy_back") == \
        ["os_scale", "os_offset"]
    with pytest.raises(AssertionError, match="peek"):
        compare_entry(PROGRAM, path, "om_copy_back", {"n": 37})
