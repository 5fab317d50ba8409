"""The lowering's one-call walk (frontend/flat.py, flatten.c) gives what cindex gives.

flatten() exists only for speed: each flattened cursor's children, extent, type, referenced
declaration and literal value must be those the cursor-by-cursor calls give, and the IR
lowered through it must equal the IR lowered without it, spans and types included.
"""

from __future__ import annotations

from pathlib import Path

import clang.cindex as ci
import pytest

from cudafuse.frontend import flat, lower
from cudafuse.frontend.clang_api import evaluate, referenced
from cudafuse.frontend.parse import ParseOptions, _parse, _top_level, parse_file

ROOT = Path(__file__).resolve().parents[2]
# Templates, macros in index expressions, launches, structs, shared memory, literals of every
# kind: a sample of the corpus, kept small (each file is lowered twice).
FILES = [ROOT / "tests" / "corpus" / name for name in (
    "point_macro_index.cu", "template_stencil.cu", "structs_classes.cu", "enums_constexpr.cu",
    "control_flow.cu", "host_pipeline_streams.cu")]

needs_helper = pytest.mark.skipif(flat._helper() is None,
                                  reason="no C compiler: the lowering asks cursor by cursor")


@needs_helper
def test_flattened_cursors_answer_as_cindex() -> None:
    path = FILES[0]
    tu = _parse(str(path), ParseOptions())
    checked = names = literals = 0
    spelled: dict[tuple[int, int, int], str] = {}
    for top in _top_level(tu.cursor, str(path)):
        root = flat.flatten(top)
        assert root is not None and root == top
        stack: list[tuple[ci.Cursor, ci.Cursor]] = [(root, top)]
        while stack:
            fc, c = stack.pop()
            tree, i = fc._flat, fc._i
            assert fc == c and fc.kind == c.kind
            ext = c.extent
            assert (tree.begins[i], tree.ends[i]) == (ext.begin_int_data, ext.end_int_data)
            t = c.type
            assert tree.type_key(i) == (t._kind_id, t.data[0] or 0)
            if c.kind in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR,
                          ci.CursorKind.CALL_EXPR):
                d = referenced(c)
                want = None if d is None else (d._kind_id, d.data[0] or 0, d.data[1] or 0)
                assert tree.referenced_key(i) == want
                names += 1
                # (the lowering reads a name's, member's or call's spelling once per key)
                if want is not None:
                    assert spelled.setdefault(want, c.spelling) == c.spelling
            if c.kind in (ci.CursorKind.INTEGER_LITERAL, ci.CursorKind.FLOATING_LITERAL,
                          ci.CursorKind.CXX_BOOL_LITERAL_EXPR):
                assert tree.value(i) == evaluate(c)
                literals += 1
            kids, want_kids = tree.children(i), list(c.get_children())
            assert kids == want_kids
            stack.extend(zip(kids, want_kids, strict=True))
            checked += 1
    assert checked > 100 and names > 10 and literals > 5


@needs_helper
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_ir_with_and_without_the_helper(path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_file(str(path), ParseOptions()).unit
    monkeypatch.setattr(lower, "flatten", lambda cursor: None)
    slow = parse_file(str(path), ParseOptions()).unit
    assert fast.functions and len(fast.functions) == len(slow.functions)
    for a, b in zip([*fast.functions, *fast.methods, *fast.globals],
                    [*slow.functions, *slow.methods, *slow.globals], strict=True):
        assert repr(a) == repr(b)  # repr shows spans and types, which == leaves out


def test_flatten_is_none_without_the_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flat, "_helper", lambda: None)
    tu = _parse(str(FILES[0]), ParseOptions())
    top = next(iter(_top_level(tu.cursor, str(FILES[0]))))
    assert flat.flatten(top) is None


@needs_helper
def test_a_tree_deeper_than_the_c_walk_takes_is_lowered_cursor_by_cursor(
        tmp_path: Path) -> None:
    """The C walk recurses once per level (6,000 levels overflowed its stack): deeper
    functions are refused there and lowered as before, through the same IR."""
    terms = " + ".join(f"p[{i % 7}]" for i in range(flat.MAX_DEPTH + 100))
    path = tmp_path / "deep.cu"
    path.write_text(f"__global__ void sum(float *p) {{ p[0] = {terms}; }}\n")
    tu = _parse(str(path), ParseOptions())
    (top,) = _top_level(tu.cursor, str(path))
    assert flat.flatten(top) is None
    (kernel,) = parse_file(str(path), ParseOptions()).unit.kernels
    assert kernel.body is not None and len(list(kernel.body.walk())) > 3 * flat.MAX_DEPTH


@needs_helper
def test_a_flattened_calls_arguments_are_its_flattened_children() -> None:
    """arguments() of a flattened call hands back the flattened cursors (so that their
    subtrees are lowered from the arrays), each the very argument libclang gives."""
    from cudafuse.frontend.clang_api import arguments

    path = FILES[0]  # macros expanding to calls (min, max) inside index expressions
    tu = _parse(str(path), ParseOptions())
    calls = 0
    for top in _top_level(tu.cursor, str(path)):
        root = flat.flatten(top)
        assert root is not None
        tree = root._flat
        for i in range(len(tree.sizes)):
            c = tree.cursor(i)
            if c.kind != ci.CursorKind.CALL_EXPR:
                continue
            got, want = arguments(c), list(c.get_arguments())
            assert all(a.__class__ is flat.FlatCursor for a in got)
            # The same expressions (node pointers, kinds, extents): only the enclosing
            # declaration a visit leaves null differs, which == compares.
            assert [(a.data[1], a.kind, a.extent) for a in got] == \
                [(a.data[1], a.kind, a.extent) for a in want]
            calls += bool(got)
    assert calls > 5


@needs_helper
def test_variables_named_in_c_as_by_libclang() -> None:
    """flatten.c's record of a variable's or parameter's spelling and declaration gives the
    name and declaration id the lowering gets asking libclang (Lowerer.decl: the canonical
    declaration's spelling, file and offset)."""
    from cudafuse.frontend.clang_api import spelling
    from cudafuse.ir.source import SourceFile

    recorded = decls = 0
    for path in FILES:
        tu = _parse(str(path), ParseOptions())
        source = SourceFile(str(path), path.read_bytes())
        fast, slow = lower.Lowerer(source, tu), lower.Lowerer(source, tu)
        for top in _top_level(tu.cursor, str(path)):
            root = flat.flatten(top)
            assert root is not None
            tree = root._flat
            for i in range(len(tree.sizes)):
                if tree.kinds[i] not in (ci.CursorKind.VAR_DECL.value,
                                         ci.CursorKind.PARM_DECL.value):
                    continue
                decls += 1
                recorded += tree.declared(i) is not None
                plain = ci.Cursor.from_buffer_copy(tree.cursor(i))  # not flattened
                plain._tu = tu
                assert fast._named(tree.cursor(i)) == (spelling(plain), slow.decl(plain))
    assert decls > 20 and recorded > 0.9 * decls


@needs_helper
def test_arguments_matched_in_c_are_those_matched_by_identity(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """flatten.c matches each call's arguments (clang_Cursor_getArgument) to its children;
    where it does, they are the children the cursor-by-cursor match picks, in order."""
    from cudafuse.frontend.clang_api import arguments

    matched = calls = 0
    for path in FILES:
        tu = _parse(str(path), ParseOptions())
        for top in _top_level(tu.cursor, str(path)):
            root = flat.flatten(top)
            assert root is not None
            tree = root._flat
            for i in range(len(tree.sizes)):
                if tree.kinds[i] != ci.CursorKind.CALL_EXPR.value:
                    continue
                calls += 1
                c = tree.cursor(i)
                fast = tree.arguments(i)
                with monkeypatch.context() as m:
                    m.setattr(flat.FlatTree, "arguments", lambda self, i: None)
                    slow = arguments(c)
                if fast is None:
                    continue
                matched += 1
                assert [a._i for a in fast] == [getattr(a, "_i", None) for a in slow]
    assert calls > 20 and matched > 0.9 * calls


@needs_helper
@pytest.mark.parametrize("path", FILES[:2], ids=lambda p: p.name)
def test_flattened_spans_are_the_cursor_by_cursor_spans(path: Path) -> None:
    """Spans.span of a flattened cursor (flatten.c's cudafuse_spans) is the span the
    cursor-by-cursor path gives (checked against cindex in test_fast_paths): in the main
    file, in macro expansions, with the main file's start unknown, and where line_col is
    not SourceFile's own (a subclass may map offsets: it is asked then)."""
    from cudafuse.frontend.clang_api import Locations, Spans, main_file_base
    from cudafuse.ir.source import SourceFile

    class Shifted(SourceFile):
        def line_col(self, offset: int) -> tuple[int, int]:
            line, col = super().line_col(offset)
            return line + 1000, col

    tu = _parse(str(path), ParseOptions())
    base = main_file_base(tu, str(path))
    assert base is not None
    checked = macro = 0
    for source in (SourceFile(str(path), path.read_bytes()),
                   Shifted(str(path), path.read_bytes())):
        for b in (base, None):
            fast = Spans(Locations(), source.path, len(source.data), b, source.line_col)
            slow = Spans(Locations(), source.path, len(source.data), b, source.line_col)
            for top in _top_level(tu.cursor, str(path)):
                root = flat.flatten(top)
                assert root is not None
                tree = root._flat
                for i in range(len(tree.sizes)):
                    c = tree.cursor(i)
                    plain = ci.Cursor.from_buffer_copy(c)  # the same cursor, not flattened
                    plain._tu = tu
                    assert fast.span(c) == slow.span(plain)
                    checked += 1
                    macro += bool((tree.begins[i] | tree.ends[i]) & (1 << 31))
    assert checked > 400 and macro > 5
