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


def test_an_expression_is_spelled_by_its_own_text_only() -> None:
    from cudafuse.ir import nodes as n
    from cudafuse.passes.vertical.emit.codegen import _spells

    w, y = n.Ref("w", "param"), n.Ref("y", "local")
    # A qualified name is its own spelling; a macro invocation is not.
    assert _spells("cfg::W", n.Ref("W", "global"))
    assert _spells(" ::Mode::B ", n.Ref("B", "enum"))
    assert not _spells("IDX(x, y)", w)
    assert not _spells("W2", n.Ref("W", "global"))
    # A compound expression: its text must name every variable it reads.
    assert _spells("y * w", n.Binary("*", y, w))
    assert not _spells("IDX(x, y)", n.Binary("*", y, w))
