"""Pipelines in host and kernel styles no other test has (issue 25; programs/
unseen_styles_s7.cu): kernels in a namespace (the fused launch replaces `img::brighten`),
static kernels in an anonymous namespace, a dim3 built by a helper (read through its one
return: no run-time check), `__restrict__ const` everywhere, uchar4 / float2 / __half
elements, a stream created and passed, a CUDA graph captured around the launches,
cudaMallocAsync / cudaFreeAsync and a memset of the new buffer between them, a kernel's
bound held in a local of the kernel (`int total = w * h; if (i >= total) return;`), and
cudaPeekAtLastError after each launch, a buffer returned by a helper that allocates it.
A std::vector of pointers set once from buffers is followed (bufs[0] is t:
host/pointer_tables.py; its three launches fuse). Pointers cudafuse does not follow (a
helper's result other than its own allocation: a static buffer returned at every call)
split the sequence:
fusing the launches around one would run the first after it. Refusals that remain
(kernel side: 3-D grids; cudaLaunchKernel's launches are not seen; templates fuse by
their instantiations since test_fuse_templates.py) are asserted
with their reasons. The plan is read in the default suite; the differential run under the
emulator (every byte of every buffer, garbage inputs, odd sizes) is slow (two emulator
builds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "unseen_styles_s7.cu"
FUSED = {"p_namespace": ("brighten", "box3"), "p_static_anon": ("square", "plus_one"),
         "p_dim3_helper": ("invert", "diff_x"), "p_restrict": ("axpb", "cross5"),
         "p_uchar4": ("to_gray", "threshold"), "p_float2": ("cmul", "cabs2"),
         "p_half": ("h_scale", "h_relu"), "p_stream": ("brighten", "box3"),
         "p_graph": ("brighten", "box3"), "p_malloc_async": ("square", "add_both"),
         "p_local_bound": ("local_bound_scale", "local_bound_shift"),
         "p_peek": ("brighten", "box3"), "p_helper_alloc": ("brighten", "box3"),
         "p_template": ("scale_t", "blur_t"),
         # (a std::vector set once from buffers: bufs[0] is t, host/pointer_tables.py)
         "p_vector": ("brighten", "invert", "box3"),
         # (CHECK(cudaLaunchKernel(...)): launches, their checks kept, host/api_launches.py)
         "p_launch_kernel": ("lk_square", "lk_half")}
UNFUSED = ("p_volume", "p_pick", "p_static_buffer")
SIZES = ({"w": 37, "h": 19, "d": 5}, {"w": 1, "h": 41, "d": 3})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("unseen_s7") / "fused.cu"
    return path, fuse_file(PROGRAM, path)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    assert not any(g.host in UNFUSED for g in result.groups)
    # The helper's dim3 and the kernel's local bound are read, not checked at run time.
    assert not any("runs when" in a for a in result.assumed)


def test_launches_rewritten_in_place(fused) -> None:
    path, _ = fused
    text = path.read_text()
    host = text[text.index("void p_namespace("):]
    host = host[:host.index("\n}\n")]
    assert "img::brighten<<<" not in host and "img::box3<<<" not in host
    assert "cf_p_namespace_fused" in host and "<<<g, b>>>(" in host
    graph = text[text.index("void p_graph("):]
    graph = graph[:graph.index("\n}\n")]
    # (the fused launch stays on the captured stream, between the capture's calls)
    assert graph.index("cudaStreamBeginCapture") < graph.index(", 0, s>>>") < \
        graph.index("cudaStreamEndCapture")


def test_refusals_say_why(fused) -> None:
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert "'vol_scale' cannot be recomputed" in why[("p_volume", "vol_add")]
    why_left = {(x.host, x.kernel): x.why for x in result.launches}
    lines = PROGRAM.read_text().splitlines()
    at_p = 1 + next(k for k, x in enumerate(lines) if "invert<<<g, b>>>(p, u" in x)
    assert why_left[("p_pick", "brighten")].startswith(
        f"line {at_p} separates it from the launch of 'invert' at line {at_p}: pointer 'p' may "
        "name any buffer (a value cudafuse does not follow")
    assert why_left[("p_static_buffer", "invert")].startswith("pointer 't2' may name any buffer")
    # cudaLaunchKernel's launches are launches (host/api_launches.py): one edge, fused.
    assert [e.fused for e in result.edges if e.host == "p_launch_kernel"] == [True]


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*FUSED, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        w, h, d = sizes["w"], sizes["h"], sizes["d"]
        volume = {"in": w * h * d, "t": w * h * d, "out": w * h * d} \
            if entry == "p_volume" else None
        compare_entry(PROGRAM, path, entry, sizes, extra=volume)
