"""A launch written in a macro's definition that the front end never saw as a launch (in a
template nothing instantiates: PyTorch's SummaryOps.cu HANDLE_CASE) is rewritten on the text
like the others; its continued lines stay continued (it was left as written, and g++ failed
at the `<<<`)."""

from __future__ import annotations

from cudafuse.emu.overlay import blank_comments, launch_edits

TEXT = (b"#define HANDLE(OP) \\\n"
        b"  k<T, M> \\\n"
        b"      <<<grid, \\\n"
        b"         block, 0, s>>>( \\\n"
        b"          a, OP);\n"
        b"int after;\n")


def test_a_launch_in_a_macro_definition_is_rewritten_and_stays_one_directive() -> None:
    edits = launch_edits(blank_comments(TEXT), TEXT)
    assert len(edits) == 1
    start, end, new = edits[0]
    out = TEXT[:start] + new.encode() + TEXT[end:]
    assert b"<<<" not in out
    assert b'launch("k<T, M>", __FILE__, __LINE__, true)(grid, \\\n         block, 0, s)' in out
    assert b"{ k<T, M>(__cf_arg_...); }" in out
    # Every line of the definition but its last still ends in a continuation.
    lines = out.split(b"\n")
    last = next(i for i, line in enumerate(lines) if b"a, OP);" in line)
    assert all(line.endswith(b"\\") for line in lines[:last])
    assert lines[last + 1] == b"int after;"


def test_a_quote_in_a_character_literal_hides_no_launch() -> None:
    # `'"'` read as the start of a string blanked the rest of its line, launch included,
    # which then reached g++ as `<<<`.
    text = b"void h(char c, float *p) { if (c == '\"') k<<<1, 2>>>(p, \"a\"); }\n"
    edits = launch_edits(blank_comments(text), text)
    assert len(edits) == 1
    assert b'launch("k"' in text[:edits[0][0]] + edits[0][2].encode()


def test_a_quote_in_a_character_literal_hides_no_unsupported_call(tmp_path) -> None:
    import pytest

    from cudafuse.diagnostics import CudafuseError
    from cudafuse.emu.libraries import check_unsupported

    text = b"void h(char c) { if (c == '\"') cuInit(0); const char *s = \"x\"; }\n"
    with pytest.raises(CudafuseError, match="driver API"):
        check_unsupported(str(tmp_path / "p.cu"), text)
