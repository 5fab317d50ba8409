"""Launches of kernel templates fuse by what each instantiation computes (issue 25;
frontend/instantiate.py, passes/vertical/kernel/instances.py; programs/templates.cu): a
type parameter (float and double instantiations of the same templates), a non-type
parameter as a stencil radius (two radii of one template in one group), arguments deduced
at the launch, a template in a namespace whose defaulted parameter is its block size,
two instantiations run as siblings, a template of an included header; a
template whose parameter reaches its body through a macro, one using a macro the file
defines again after it, and one with a template template parameter stay refused with
their reasons.
The plan is read in the default suite; the differential run under the emulator (every
element of every buffer, garbage inputs, odd sizes) is slow."""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "templates.cu"
FUSED = {"p_type": ("scale_t", "blur_t"), "p_two_radii": ("scale_t", "blur_t", "blur_t"),
         "p_double": ("scale_t", "blur_t"), "p_deduced": ("add_t", "square_t"),
         "p_namespace": ("affine_t", "square_t"), "p_included": ("scale_t", "hblur_t")}
SIBLINGS = ("p_siblings",)
UNFUSED = ("p_macro", "p_redefined", "p_template_template")
SIZES = ({"w": 37, "h": 19, "n": 37 * 19}, {"w": 1, "h": 41, "n": 41})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("templates") / "fused.cu"
    header = PROGRAM.parent / "templates_kernels.cuh"  # (the fused file includes it too)
    (path.parent / header.name).write_bytes(header.read_bytes())
    return path, fuse_file(PROGRAM, path, fuse_all=True, siblings="always")


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())
    sibs = sorted(s.host for p in result.plans for s in p.siblings if s.fused)
    assert sibs == list(SIBLINGS)


def test_instantiations_are_concrete(fused) -> None:
    path, _ = fused
    text = path.read_text()
    kernel = text[text.index("__global__ void cf_p_two_radii_fused"):]
    kernel = kernel[:kernel.index("\n}\n")]
    # The radius is the launch's constant in each part; the type parameter is float.
    assert "d <= (2)" in kernel and "(T)" not in kernel and " T " not in kernel
    producer = text[text.index("cf_p_two_radii_fused1_1_blur_t_float_1_out_xy("):]
    assert "d <= (1)" in producer[:producer.index("\n}\n")]
    # The templates stay as written, and so do the launches left unfused.
    assert "template <typename T, int R>\n__global__ void blur_t(" in text
    assert "blur_macro<1><<<g, b>>>(t, out, w, h);" in text


def test_refusal_says_why(fused) -> None:
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    line = 1 + next(k for k, x in enumerate(PROGRAM.read_text().splitlines())
                    if "d <= CF_TEST_RADIUS" in x)
    assert why[("p_macro", "blur_macro")] == (
        "not fused: 'blur_macro' is a template whose instantiation is not made: its "
        f"parameter 'R' is used through a macro (line {line})")
    assert why[("p_redefined", "square_t")] == (
        "not fused: 'gain_t' is a template whose instantiation is not made: the macro "
        "'CF_TEST_GAIN' it uses is defined or undefined again after it (its copy, read after "
        "the file, could mean something else)")
    assert why[("p_template_template", "apply_op")] == (
        "not fused: 'apply_op' is a template whose instantiation is not made: its template "
        "argument 1 is a template or a pack (no text of a type or a value stands for it)")


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*FUSED, *SIBLINGS, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)


def test_a_copy_is_the_kernel_of_its_own_launches_only(tmp_path: Path) -> None:
    """Two launches of one included template, one instantiated and one refused: the refused
    launch keeps its template (by name it would have found the other's copy, whose
    `sizeof(T)` is another)."""
    (tmp_path / "conv.cuh").write_text(
        "template <typename T>\n__global__ void conv(const float *in, float *out, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) out[i] = in[i] * sizeof(T);\n}\n")
    src = tmp_path / "main.cu"
    src.write_text('#include "conv.cuh"\nvoid run(const float *in, float *t, float *out, '
                   'int n) {\n  conv<float><<<(n + 127) / 128, 128>>>(in, t, n);\n'
                   '  conv<double *><<<(n + 127) / 128, 128>>>(t, out, n);\n}\n')
    out = tmp_path / "out.cu"
    result = fuse_file(src, out, fuse_all=True)
    assert not result.groups and out.read_bytes() == src.read_bytes()
    assert result.launches[1].why == (
        "kernel 'conv' is a template of the included 'conv.cuh' whose instantiation is not "
        "made: its type argument 'double *' is a pointer, reference, array or function type "
        "(its text cannot stand for the parameter)")
