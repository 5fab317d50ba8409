"""Pointers carried in structs taken by value (issue 25, hostexprs.struct_field): `img.data`
of a struct parameter the host function never changes is a buffer of its own, so a pipeline
over `struct Image { float *data; int w, h; }` fuses and matches the original under
emulation (garbage-filled buffers, odd sizes), written in place or through one-launch
wrappers given the fields; a struct the function assigns, takes the
address of, or passes whole to a call still splits, with why."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "host_structs.cu"


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("hs") / "fused.cu"
    return out, fuse_file(PROGRAM, out, fuse_all=True)


def test_struct_fields_fuse(fused) -> None:
    out, result = fused
    assert [(g.host, g.kernels) for g in result.groups] == [
        ("hs_pipeline", ["hs_scale", "hs_mix"]), ("hs_wrapped", ["hs_scale", "hs_mix"])]
    body = out.read_text().split("void hs_pipeline(")[1].split("\n}\n")[0]
    assert body.count("<<<") == 1 and "src.data" in body and "tmp.data" in body


@pytest.mark.parametrize("entry", ["hs_entry", "hs_entry_wrapped"])
def test_fused_matches_original(fused, entry: str) -> None:
    out, _ = fused
    for w, h in ((1, 1), (13, 7), (40, 9)):
        compare_entry(PROGRAM, out, entry, {"w": w, "h": h})


SPLITS = r"""
#include <cuda_runtime.h>
struct Image { float *data; int w, h; };
__global__ void ka(const float *in, float *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = in[i] * 2.0f;
}
__global__ void kb(const float *t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t[i] + 1.0f;
}
void reset(Image &im);
void field_assigned(Image src, Image tmp, Image dst, int n) {
  tmp.data = src.data;
  ka<<<(n + 127) / 128, 128>>>(src.data, tmp.data, n);
  kb<<<(n + 127) / 128, 128>>>(tmp.data, dst.data, n);
}
void passed_whole(Image src, Image tmp, Image dst, int n) {
  reset(tmp);
  ka<<<(n + 127) / 128, 128>>>(src.data, tmp.data, n);
  kb<<<(n + 127) / 128, 128>>>(tmp.data, dst.data, n);
}
void local_struct(const float *in, float *t, float *out, int n) {
  Image tmp = {t, n, 1};
  ka<<<(n + 127) / 128, 128>>>(in, tmp.data, n);
  kb<<<(n + 127) / 128, 128>>>(t, out, n);
}
void copy_between(Image src, Image tmp, Image dst, float *h, int n) {
  ka<<<(n + 127) / 128, 128>>>(src.data, tmp.data, n);
  cudaMemcpy(h, tmp.data, n * sizeof(float), cudaMemcpyDeviceToHost);
  kb<<<(n + 127) / 128, 128>>>(tmp.data, dst.data, n);
}
"""

WHY = {
    "field_assigned": "the struct carrying pointer 'tmp.data' is assigned, has its address "
                      "taken or is passed whole to a call in the function",
    "passed_whole": "the struct carrying pointer 'tmp.data' is assigned, has its address "
                    "taken or is passed whole to a call in the function",
    "copy_between": "its call to 'cudaMemcpy' touches 'tmp.data', which may be a buffer the "
                    "launch of 'ka' at line 29 uses",
}


def test_changed_structs_split(tmp_path: Path) -> None:
    src = tmp_path / "splits.cu"
    src.write_text(SPLITS)
    result = fuse_file(src, tmp_path / "out.cu", fuse_all=True)
    first = {la.host: la.why for la in result.launches if la.index == 0}
    for host, why in WHY.items():
        assert first[host].endswith(why), (host, first[host])
    # A local struct's field is not followed (it may alias `t`): no group there either.
    assert not result.groups
    assert result.output == src.read_bytes()
