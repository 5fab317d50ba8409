"""An `extern __shared__` array whose type carries an alignment (`__align__(16)`, as
cudafuse's own sibling kernels declare their dynamic shared memory) in a header the program
includes is rewritten for the emulator like any other (it was left as written, and g++ read
`extern static`: "conflicting specifiers")."""

from __future__ import annotations

from cudafuse.emu.overlay import rewrite_header


def test_aligned_extern_shared_in_a_header_is_rewritten() -> None:
    text = (b"__global__ void k(float *o) {\n"
            b"  extern __shared__ __align__(16) unsigned char smem[];\n"
            b"  o[0] = smem[0];\n}\n")
    out = rewrite_header(text)
    assert out is not None
    assert b"extern" not in out
    assert b"static unsigned char *const smem = static_cast<unsigned char *>(" \
        b"__cudafuse_dyn_smem());" in out
    assert out.count(b"\n") == text.count(b"\n")  # lines kept


def test_plain_extern_shared_unchanged_by_the_alignment_rule() -> None:
    out = rewrite_header(b"extern __shared__ float s[];\n")
    assert out == b"static float *const s = static_cast<float *>(__cudafuse_dyn_smem());\n"
