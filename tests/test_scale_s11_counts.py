"""Work that grew with the product of two sizes of the input (issue 27), counted, not timed:
- each kernel's facts read every global of the unit (kernels x globals: a file of 600
  kernels and as many __constant__ tables spent 0.4 CPU-s there);
- the figures of each fused group built a map of every launch of its plan (groups x
  launches: a 1,000-launch chain);
- --explain's launch lines scanned every launch per host function, and --dot every edge
  per plan (hosts x launches, plans x edges).
Each list the work walked is replaced by one that counts the elements it hands out; the
count must not grow with the other size.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cudafuse
from cudafuse.analysis.report import build_report
from cudafuse.frontend import ParseOptions
from cudafuse.frontend.parse import parse_file


class Counting(list):
    """A list that counts the elements its iterators hand out."""

    handed = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for x in super().__iter__():
            self.handed += 1
            yield x


def _globals_program(kernels: int) -> str:
    """`kernels` kernels, each reading its own __constant__ table and __device__ scalar and
    staging its input in a __shared__ tile; one host function launching them in turn."""
    out = ["#include <cuda_runtime.h>", "__shared__ float g_tile[32];"]
    for i in range(kernels):
        out.append(f"__constant__ float c_{i}[16];\n__device__ float g_{i};")
    for i in range(kernels):
        out.append(f"""
__global__ void k_{i}(const float *in, float *out, int n) {{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  g_tile[threadIdx.x % 32] = in[t];
  __syncthreads();
  out[t] = g_tile[threadIdx.x % 32] * c_{i}[t % 16] + g_{i};
}}""")
    names = ["in", *(f"b{i}" for i in range(1, kernels)), "out"]
    body = [f"  k_{i}<<<(n + 255) / 256, 256>>>({names[i]}, {names[i + 1]}, n);"
            for i in range(kernels)]
    params = ", ".join(f"float *b{i}" for i in range(1, kernels))
    return "\n".join([*out, f"void run(const float *in, float *out, {params}, int n) {{",
                      *body, "}"]) + "\n"


def _globals_read(tmp_path: Path, kernels: int) -> tuple[int, list]:
    path = tmp_path / f"globals_{kernels}.cu"
    path.write_text(_globals_program(kernels))
    unit = parse_file(str(path), ParseOptions(included_kernels=True)).unit
    unit.globals = Counting(unit.globals)
    report = build_report(unit)
    return unit.globals.handed, report["kernels"]


def test_kernel_facts_do_not_read_every_global_per_kernel(tmp_path: Path) -> None:
    small, facts = _globals_read(tmp_path, 4)
    large, more = _globals_read(tmp_path, 8)
    # (the facts the globals give are still there: each kernel's own table, the tile)
    assert more[7]["constants"] == ["c_7"], more[7]
    assert {s["name"] for s in more[7]["shared"]} == {"g_tile"}, more[7]
    assert len(facts) == 4 and len(more) == 8
    # read once per unit (its tables) and per host: the count follows the globals (2 per
    # kernel, and the tile), not kernels x globals
    assert small > 0
    assert large <= 2 * small + 4, (small, large)


def _hosts_program(hosts: int) -> str:
    """`hosts` host functions, each launching a point kernel and a consumer of its output."""
    out = ["#include <cuda_runtime.h>"]
    for h in range(hosts):
        out.append(f"""
__global__ void a_{h}(const float *in, float *out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f + {h}.0f;
}}
__global__ void b_{h}(const float *in, float *out, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}}
void run_{h}(const float *in, float *t, float *out, int n) {{
  a_{h}<<<(n + 255) / 256, 256>>>(in, t, n);
  b_{h}<<<(n + 255) / 256, 256>>>(t, out, n);
}}""")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def fused_hosts(tmp_path_factory: pytest.TempPathFactory) -> dict[int, cudafuse.api.Fused]:
    mp = pytest.MonkeyPatch()
    mp.setenv("CUDAFUSE_NO_PTXAS", "1")
    mp.setenv("CUDAFUSE_NO_NVCC_CHECK", "1")
    out = {}
    try:
        for hosts in (3, 6):
            path = tmp_path_factory.mktemp("hosts") / f"hosts_{hosts}.cu"
            path.write_text(_hosts_program(hosts))
            out[hosts] = cudafuse.fuse(str(path), fuse_all=True)
    finally:
        mp.undo()
    return out


def test_renderings_walk_launches_and_edges_once(fused_hosts) -> None:
    from cudafuse.passes.vertical.emit.render import dot_text, explain_text

    counts = {}
    for hosts, fused in fused_hosts.items():
        result = fused.result
        assert len(result.plans) == hosts and len(result.groups) == hosts  # one per host
        result.launches = Counting(result.launches)
        result.edges = Counting(result.edges)
        explain = explain_text(result)
        assert f"launches of run_{hosts - 1}:" in explain
        launches = result.launches.handed
        dot = dot_text(result)
        assert f"n{hosts - 1}_0 -> n{hosts - 1}_1" in dot
        counts[hosts] = (launches, result.edges.handed)
    (l3, e3), (l6, e6) = counts[3], counts[6]
    # a fixed number of walks of each list: twice the elements for twice the hosts
    assert l6 == 2 * l3 and e6 == 2 * e3, counts


def test_group_figures_do_not_map_every_launch_per_group(monkeypatch, tmp_path) -> None:
    """The figures of each group (what `fuse` annotates) read their plan's launches once
    per plan, not once per group."""
    import sys

    from cudafuse.passes.vertical.plan.resources import group_resources

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        from bench_scale import generate_chain
    finally:
        sys.path.pop(0)
    monkeypatch.setenv("CUDAFUSE_NO_PTXAS", "1")
    monkeypatch.setenv("CUDAFUSE_NO_NVCC_CHECK", "1")
    counts = {}
    for launches in (8, 16):
        path = tmp_path / f"chain_{launches}.cu"
        path.write_text(generate_chain(launches))
        fused = cudafuse.fuse(str(path))
        (plan,) = fused.result.plans
        assert len(plan.groups) >= 2, plan.groups
        plan.launch_indices = Counting(plan.launch_indices)
        for note in plan.groups:
            group_resources(plan, note, "sm_90", "not compiled")
        counts[launches] = (plan.launch_indices.handed, len(plan.groups))
    assert counts[8][0] == 8 and counts[16][0] == 16, counts  # once per plan
