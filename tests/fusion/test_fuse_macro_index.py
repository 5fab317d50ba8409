"""A pipeline indexing through a macro (`IDX(x, y)` expanding to `(y) * w + (x)`, `w` from
the enclosing scope): the fused program prints the producer's stride as `w`, never as the
macro call (which named variables that do not exist where it was printed, and did not
compile), and computes what the original does, every element, borders included."""

from __future__ import annotations

from pathlib import Path

from equivalence import fuse_file, run_both

PROGRAM = Path(__file__).parent / "programs" / "macro_index.cu"


def test_macro_indexing_fuses_and_matches(tmp_path: Path) -> None:
    out = tmp_path / "fused.cu"
    result = fuse_file(PROGRAM, out, fuse_all=True)
    assert [g.kernels for g in result.groups] == [["grad", "scale"]]
    text = out.read_text()
    assert "(int)cf_i % (w), (int)cf_i / (w)" in text
    assert "% (IDX(" not in text
    for w, h in ((37, 19), (64, 8), (1, 5)):
        run_both(PROGRAM, out, "pipeline", w, h)
