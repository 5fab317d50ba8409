"""Kernel templates in styles tests/fusion/test_fuse_templates.py does not draw (issue 25;
programs/template_styles.cu): kernel and device templates declared before their
definitions (prototypes in a header, a defaulted parameter on the declaration), an explicit
specialisation launched beside its primary template's instantiations, a bool non-type
parameter handed on to a device template (Rodinia's `prescan<storeSum, isNP2>` style), and
a scoped enumeration as a non-type parameter selecting an `if constexpr` branch. Each
instantiation must be made and fused; the original and the fused program must agree on
every element (slow: the emulator).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "template_styles.cu"
FUSED = [("p_forward", ("offset_k", "twice_k")), ("p_helper", ("cubed_k", "cubed_plain_k")),
         ("p_default_arg", ("twice_k", "offset_k")), ("p_specialised", ("bump_k", "bump_k")),
         ("p_bool_values", ("half_k", "half_k")), ("p_enum", ("combine_k", "combine_k")),
         # host function templates, through their explicit specialisations
         ("forward_gpu", ("offset_k", "twice_k")), ("forward_gpu", ("offset_k", "twice_k")),
         ("launch_pair", ("combine_k", "half_k")), ("with_default", ("offset_k", "offset_k")),
         ("chain", ("offset_k", "twice_k")), ("respelled_pair", ("copies_k", "offset_k")),
         # each thread reads its own element of 'a' before it updates it (plan/legality.py)
         ("in_place", ("twice_k", "twice_k"))]
ENTRIES = ("p_forward", "p_helper", "p_default_arg", "p_specialised", "p_bool_values",
           "p_enum", "p_template_host", "p_template_host_double", "p_static_launcher",
           "p_default_host", "p_nested", "p_respelled", "p_in_place")
UNFUSED = ("p_bool",)
SIZES = ({"n": 37 * 19}, {"n": 1}, {"n": 129})


@pytest.fixture(scope="module")
def fused(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("template_styles") / "fused.cu"
    header = PROGRAM.parent / "template_styles_decls.cuh"  # (the fused file includes it)
    (path.parent / header.name).write_bytes(header.read_bytes())
    return path, fuse_file(PROGRAM, path, fuse_all=True)


def test_what_fuses(fused) -> None:
    _, result = fused
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED)


def test_instantiations_are_made(fused) -> None:
    """No launch is left with "instantiation is not made": a template declared first is
    found by its definition, and a bool is bound as `true`/`false` (`(1)` is no bool
    template argument, so the copy's `fetch<CLAMP>` did not compile)."""
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert not any("instantiation is not made" in w for w in why.values()), why
    assert "'shifted_k' passes 'in' to 'fetch'" in why[("p_bool", "shifted_k")]


def test_host_templates_are_specialised(fused) -> None:
    """Each instantiation of a host function template that the file uses (explicit
    instantiations, a call with deduced arguments) is written as an explicit specialisation
    on the template's last line, so every later line keeps its number; one in which nothing
    fuses (pair_in_place: its second kernel also writes its input) is dropped; one never
    used gets a note saying so."""
    path, result = fused
    text = path.read_text()
    assert "template <> void forward_gpu<float>(const float *bottom," in text
    assert "template <> void forward_gpu<double>(const double *bottom," in text
    assert "void launch_pair<(2), float>(const float *a," in text
    assert "void with_default<float>(const float *a, float *t, float *o, int n, float by )" \
        in text  # (its default argument dropped: the template keeps it)
    assert "void in_place<float>(float *a, float *t, int n)" in text
    assert "never_used<" not in text
    assert "int chain<float>(" in text and "pair_in_place<" not in text  # (in place: kept)
    assert "the bias first" not in text.split("template <> void forward_gpu<float>")[1][:400]
    # (the code after the last template keeps its lines: fused kernels come before them)
    src = PROGRAM.read_text().splitlines()
    assert text.splitlines()[-len(src) + src.index("void p_in_place(float *a, float *tmp, "
                                                   "int n)"):] == src[src.index(
                                                       "void p_in_place(float *a, float "
                                                       "*tmp, int n)"):]
    # (notes about a copy's code point where the template has it)
    (edge,) = [e for e in result.edges if e.host == "in_place"]
    assert (edge.line, edge.col) == (1 + src.index("    twice_k<T><<<(n + 63) / 64, 64>>>(t, "
                                                   "a, n);"), 5)
    line = 1 + src.index("    offset_k<T><<<(n + 63) / 64, 64>>>(a, t, T(1), n);")
    assert ("never_used", line, 5, "launches in 'never_used' are not fused: it is a function "
            "template, and no concrete copy of it is made: no instantiation of it is used in "
            "the file") in result.breaks


def test_explicit_specialisation_is_its_own(fused) -> None:
    """`bump_k<double>` launches the specialisation (subtract three), not a copy of the
    primary template (add one)."""
    path, _ = fused
    text = path.read_text()
    kernel = text[text.index("__global__ void cf_p_specialised_fused"):]
    helper = text[text.index("cf_p_specialised_fused"):text.index("__global__ void "
                                                                  "cf_p_specialised_fused")]
    assert "- 3.0" in kernel[:kernel.index("\n}\n")] and "- 3.0" in helper
    assert "T(1)" not in helper and "(double)(1)" not in helper


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted([*ENTRIES, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)


def test_caps_reach_instantiations_named_apart(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    """A register cap planned for a group of two instantiations of one template
    (`box_k<1>` then `box_k<2>`, named apart for code generation) is emitted: it was looked
    up by the names given apart and missed. A stand-in ptxas gives the fused kernel 50
    registers (occupancy 0.50 at 32x8), R under a cap of R, the originals 20."""
    import re

    import cudafuse.analysis.ptxas as ptxas
    from cudafuse import api
    from cudafuse.analysis.ptxas import Resources

    def fake(source: bytes, arch: str, flags: tuple[str, ...] = (), name: str = "") -> dict:
        out = {}
        for cap, k in re.findall(r"__global__\s+void\s+(?:__maxnreg__\((\d+)\)\s+)?(\w+)\(",
                                 source.decode()):
            out[k] = Resources(int(cap) if cap else 50 if k.startswith("cf_") else 20, 0)
        return out

    src = tmp_path / "radii.cu"
    src.write_text("""template <int R>
__global__ void box_k(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int d = -R; d <= R; ++d)
        s += in[y * w + min(max(x + d, 0), w - 1)];
    out[y * w + x] = s / (2 * R + 1);
}

void run(const float *in, float *tmp, float *out, int w, int h)
{
    dim3 b(32, 8), g((w + 31) / 32, (h + 7) / 8);
    box_k<1><<<g, b>>>(in, tmp, w, h);
    box_k<2><<<g, b>>>(tmp, out, w, h);
}
""")
    monkeypatch.delenv("CUDAFUSE_NO_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "compile_figures", fake)
    fused = api.fuse(str(src))
    (group,) = fused.report["sequences"][0]["fused"]
    assert group["kernels"] == ["box_k", "box_k"]
    cap = group["resources"]["register_cap"]
    assert cap is not None
    assert f"__global__ void __maxnreg__({cap}) {group['name']}(" in fused.text
