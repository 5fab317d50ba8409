"""A store through any lvalue rooted at a pointer parameter is a write of that parameter:
members of its element (structs, CUDA vector types), arrow, dereference, member arrays,
compound assignments and increments, addresses taken and handed to atomics or helpers,
casts, and elements bound to a non-const reference (a local `px &q = p[i]` or a helper's
`px &` parameter). Reads through the same forms are not writes."""

from __future__ import annotations

import pytest

from cudafuse.analysis.evaluate import MEMBER_NOTE, mutable_reference
from cudafuse.analysis.report import analyze_unit, build_report

DECLS = """
struct px { float r; float g; };
struct arr { float f[3]; };
struct nest { px a; px b[2]; };
__device__ void set_ref(px &q, float v) { q.r = v; }
__device__ void set_float(float &q, float v) { q = v; }
__device__ void set_ptr(px *q, float v) { q->g = v; }
__device__ void set_deref(float *q, float v) { *q = v; }
__device__ void set_twice(px &q, float v) { set_ref(q, v); }
__device__ float get(const px &q) { return q.r; }
__device__ void opaque_store(px &q);
"""

# (name, parameter type, statement run by thread i < n)
WRITES = [
    ("struct_member", "px", "p[i].r = 1.0f;"),
    ("float2_member", "float2", "p[i].x = 1.0f;"),
    ("uchar4_member", "uchar4", "p[i].w = 1;"),
    ("float4_compound", "float4", "p[i].x += 1.0f;"),
    ("member_increment", "px", "p[i].r++;"),
    ("member_predecrement", "px", "--p[i].g;"),
    ("arrow_offset", "px", "(p + i)->r = 1.0f;"),
    ("arrow_local_pointer", "px", "px *q = p + i; q->g = 2.0f;"),
    ("deref_member", "px", "(*(p + i)).g = 2.0f;"),
    ("member_array", "arr", "p[i].f[1] = 1.0f;"),
    ("nested_member", "nest", "p[i].a.r = 1.0f;"),
    ("nested_member_array", "nest", "p[i].b[1].g = 1.0f;"),
    ("deref_store", "float", "*(p + i) = 1.0f;"),
    ("deref_increment", "float", "(*(p + i))++;"),
    ("c_cast", "px", "((float *)p)[i] = 3.0f;"),
    ("reinterpret_cast", "float", "reinterpret_cast<float4 *>(p)[i] = make_float4(1, 2, 3, 4);"),
    ("reinterpret_cast_member", "float", "reinterpret_cast<float4 *>(p)[i].y = 1.0f;"),
    ("helper_reference", "px", "set_ref(p[i], 2.0f);"),
    ("helper_reference_member", "px", "set_float(p[i].g, 2.0f);"),
    ("helper_reference_nested", "px", "set_twice(p[i], 2.0f);"),
    ("helper_pointer_arrow", "px", "set_ptr(&p[i], 2.0f);"),
    ("helper_member_address", "px", "set_deref(&p[i].g, 2.0f);"),
    ("undefined_helper_reference", "px", "opaque_store(p[i]);"),
    ("local_reference", "px", "px &q = p[i]; q.r = 3.0f;"),
    ("local_float_reference", "float", "float &q = p[i]; q = 3.0f;"),
    ("atomic_member", "px", "atomicAdd(&p[i].g, 2.0f);"),
    ("atomic_arrow", "px", "atomicAdd(&(p + i)->r, 2.0f);"),
]

READS = [
    ("struct_member", "px", "o[i] = p[i].r;"),
    ("float2_member", "float2", "o[i] = p[i].x + p[i].y;"),
    ("member_array", "arr", "o[i] = p[i].f[2];"),
    ("const_reference_helper", "px", "o[i] = get(p[i]);"),
    ("member_address_read", "px", "const float *q = &p[i].g; o[i] = *q;"),
    ("ldg_member_address", "px", "o[i] = __ldg(&p[i].r);"),
    ("math_call", "float2", "o[i] = sqrtf(p[i].x) + fminf(p[i].y, 1.0f);"),
]


def _kernel(ptype: str, stmt: str, const: bool = False) -> str:
    q = "const " if const else ""
    return DECLS + f"""
__global__ void k({q}{ptype} *p, float *o, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{ {stmt} }}
}}
"""


# Stores of whole own elements (the others store part of one, through a reinterpreting
# cast, or where the analysis does not follow: none of those is a point store).
WHOLE = {"deref_store", "deref_increment"}


@pytest.mark.parametrize(("name", "ptype", "stmt"), WRITES, ids=[w[0] for w in WRITES])
def test_store_marks_the_pointer_written(kernel, name: str, ptype: str, stmt: str) -> None:
    facts = kernel(_kernel(ptype, stmt))
    p = next(x for x in facts.params if x.name == "p")
    assert p.writes or p.atomic, f"{stmt!r} is not seen as a write of p"
    store = facts.store("p")
    assert store is not None
    assert store.point == (name in WHOLE), store
    assert store.point or store.reason


@pytest.mark.parametrize(("ptype", "stmt"), [r[1:] for r in READS],
                         ids=[r[0] for r in READS])
def test_member_reads_are_not_writes(kernel, ptype: str, stmt: str) -> None:
    facts = kernel(_kernel(ptype, stmt, const=True))
    p = next(x for x in facts.params if x.name == "p")
    assert p.reads and not p.writes and not p.atomic
    assert facts.store("p") is None


def test_member_store_reason_names_the_member(kernel) -> None:
    facts = kernel(_kernel("px", "p[i].r = 1.0f; p[i].g = 2.0f;"))
    assert facts.store("p").reason == MEMBER_NOTE
    # Reading a member is a read at the element's index, classified as before.
    facts = kernel(_kernel("px", "o[i] = p[i].r;", const=True))
    assert facts.load("p").kind == "point"


def test_report_and_dependence_show_the_write(unit_of) -> None:
    src = _kernel("float2", "p[i].x = 1.0f;") + """
__global__ void use(const float2 *p, float *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = p[i].x;
}
void host(float2 *p, float *o, float *o2, int n)
{
    k<<<(n + 127) / 128, 128>>>(p, o, n);
    use<<<(n + 127) / 128, 128>>>(p, o2, n);
}
"""
    report = build_report(unit_of(src))
    params = {p["name"]: p for p in report["kernels"][0]["params"]}
    assert params["p"]["access"] == "w"
    _, pipes = analyze_unit(unit_of(src))
    # The second launch reads what the first wrote: a dependence, not independent launches.
    assert any(d.src == 0 and d.dst == 1 and d.kind == "raw" for d in pipes[0].deps), pipes[0].deps


@pytest.mark.parametrize(("t", "mutable"), [
    ("px &", True), ("float &", True), ("const px &", False), ("const float &", False),
    ("float *&", True), ("const float *&", True), ("px &&", True), ("px", False),
    ("px *", False)])
def test_mutable_reference(t: str, mutable: bool) -> None:
    assert mutable_reference(t) is mutable
