"""Kernel templates in styles tests/fusion/test_fuse_templates.py does not draw (issue 25;
programs/template_styles.cu): templates declared before their definitions (prototypes in a
header, a defaulted parameter on the declaration), an explicit specialisation launched
beside its primary template's instantiations, a bool non-type parameter handed on to a
device template (Rodinia's `prescan<storeSum, isNP2>` style), and a scoped enumeration as a
non-type parameter selecting an `if constexpr` branch. Each instantiation must be made and
fused; the original and the fused program must agree on every element (slow: the emulator).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from equivalence import compare_entry, fuse_file

PROGRAM = Path(__file__).parent / "programs" / "template_styles.cu"
FUSED = {"p_forward": ("offset_k", "twice_k"), "p_default_arg": ("twice_k", "offset_k"),
         "p_specialised": ("bump_k", "bump_k"), "p_bool_values": ("half_k", "half_k"),
         "p_enum": ("combine_k", "combine_k")}
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
    assert sorted((g.host, tuple(g.kernels)) for g in result.groups) == sorted(FUSED.items())


def test_instantiations_are_made(fused) -> None:
    """No launch is left with "instantiation is not made": a template declared first is
    found by its definition, and a bool is bound as `true`/`false` (`(1)` is no bool
    template argument, so the copy's `fetch<CLAMP>` did not compile)."""
    _, result = fused
    why = {(e.host, e.dst): e.why for e in result.edges if e.refused}
    assert not any("instantiation is not made" in w for w in why.values()), why
    assert "'shifted_k' passes 'in' to 'fetch'" in why[("p_bool", "shifted_k")]


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
@pytest.mark.parametrize("entry", sorted([*FUSED, *UNFUSED]))
def test_fused_equals_original(fused, entry: str) -> None:
    path, _ = fused
    for sizes in SIZES:
        compare_entry(PROGRAM, path, entry, sizes)
