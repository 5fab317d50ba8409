"""libclang access: the wheel's library, plus the C entry points its Python bindings lack."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable

import clang.cindex as ci

from cudafuse.frontend.flat import FlatCursor, FlatTree
from cudafuse.frontend.flat import spans as flat_spans
from cudafuse.ir.source import SourceFile, Span

# CXUnaryOperatorKind (clang-c/Index.h, LLVM 17+).
_UNARY = {1: ("++", True), 2: ("--", True), 3: ("++", False), 4: ("--", False), 5: ("&", False),
          6: ("*", False), 7: ("+", False), 8: ("-", False), 9: ("~", False), 10: ("!", False)}
_EVAL_INT, _EVAL_FLOAT = 1, 2


@functools.cache
def libclang() -> ctypes.CDLL:
    """The wheel's libclang, with the types of the entry points used here declared."""
    lib = ci.conf.lib
    lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
    lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
    lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
    lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_Location_isFromMainFile.argtypes = [ci.SourceLocation]
    lib.clang_Location_isFromMainFile.restype = ctypes.c_int
    lib.clang_Cursor_isInlineNamespace.argtypes = [ci.Cursor]
    lib.clang_Cursor_isInlineNamespace.restype = ctypes.c_uint
    return lib


def namespaces(cursor: ci.Cursor) -> tuple[tuple[str, bool], ...]:
    """The namespaces a declaration is a member of, outermost first: (name, inline), name
    '' for an anonymous namespace (its semantic scope: an out-of-line definition
    `void a::f() {}` is in `a`)."""
    out = []
    parent = cursor.semantic_parent
    while parent is not None and parent.kind == ci.CursorKind.NAMESPACE:
        out.append((parent.spelling, bool(libclang().clang_Cursor_isInlineNamespace(parent))))
        parent = parent.semantic_parent
    return tuple(reversed(out))


_BINARY: dict[int, str] = {}


def binary_op(cursor: ci.Cursor) -> str:
    return binary_spelling(libclang().clang_getCursorBinaryOperatorKind(cursor))


def binary_spelling(kind: int) -> str:
    """The operator a CXBinaryOperatorKind stands for ('+', '+=', ...)."""
    text = _BINARY.get(kind)
    if text is None:
        text = _BINARY[kind] = ci._CXString.from_result(
            libclang().clang_getBinaryOperatorKindSpelling(kind))
    return text


def unary_op(cursor: ci.Cursor) -> tuple[str, bool]:
    """(operator, is_postfix); ('?', False) for kinds the IR does not model."""
    return unary_spelling(libclang().clang_getCursorUnaryOperatorKind(cursor))


def unary_spelling(kind: int) -> tuple[str, bool]:
    """unary_op's answer for a CXUnaryOperatorKind."""
    return _UNARY.get(kind, ("?", False))


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """Clang's constant folding of an expression or an initialised variable, if it folds."""
    lib = libclang()
    res = lib.clang_Cursor_Evaluate(cursor)
    if not res:
        return None
    try:
        kind = lib.clang_EvalResult_getKind(res)
        if kind == _EVAL_INT:
            return int(lib.clang_EvalResult_getAsLongLong(res))
        if kind == _EVAL_FLOAT:
            return float(lib.clang_EvalResult_getAsDouble(res))
        return None
    finally:
        lib.clang_EvalResult_dispose(res)


def in_main_file(cursor: ci.Cursor) -> bool:
    """Whether the cursor's (expansion) location lies in the main file.

    One C call instead of `cursor.location.file.name`, which builds a File and a Python string:
    a translation unit that includes <math.h> has tens of thousands of top-level declarations,
    and filtering them by name cost more than parsing.
    """
    return bool(libclang().clang_Location_isFromMainFile(cursor.location))




@functools.cache
def _raw_lib() -> ctypes.CDLL:
    """The same library through a second handle, so that these prototypes (plain void* for
    CXFile) do not clash with the ones clang.cindex registers."""
    raw = ctypes.CDLL(ci.conf.lib._name, handle=ci.conf.lib._handle)
    fn = raw.clang_getInstantiationLocation
    fn.argtypes = [ci.SourceLocation, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                   ctypes.c_void_p]
    fn.restype = None
    raw.clang_getFileName.argtypes = [ctypes.c_void_p]
    raw.clang_getFileName.restype = ci._CXString
    # Bare prototypes for the lowering's hot calls: cindex's wrappers add a result converter
    # (and, for children, an assertion calling back into C) per call.
    raw.clang_visitChildren.argtypes = [ci.Cursor, _VISITOR, ctypes.py_object]
    raw.clang_visitChildren.restype = ctypes.c_uint
    raw.clang_getCursorExtent.argtypes = [ci.Cursor]
    raw.clang_getCursorExtent.restype = ci.SourceRange
    raw.clang_getRangeStart.argtypes = [ci.SourceRange]
    raw.clang_getRangeStart.restype = ci.SourceLocation
    raw.clang_getRangeEnd.argtypes = [ci.SourceRange]
    raw.clang_getRangeEnd.restype = ci.SourceLocation
    raw.clang_getCursorType.argtypes = [ci.Cursor]
    raw.clang_getCursorType.restype = ci.Type
    raw.clang_getTypeSpelling.argtypes = [ci.Type]
    raw.clang_getTypeSpelling.restype = ci._CXString
    raw.clang_getCursorReferenced.argtypes = [ci.Cursor]
    raw.clang_getCursorReferenced.restype = ci.Cursor
    raw.clang_getCanonicalCursor.argtypes = [ci.Cursor]
    raw.clang_getCanonicalCursor.restype = ci.Cursor
    raw.clang_getCursorSpelling.argtypes = [ci.Cursor]
    raw.clang_getCursorSpelling.restype = _RawString
    raw.clang_getCString.argtypes = [_RawString]
    raw.clang_getCString.restype = ctypes.c_char_p
    raw.clang_disposeString.argtypes = [_RawString]
    raw.clang_disposeString.restype = None
    raw.clang_Cursor_getNumArguments.argtypes = [ci.Cursor]
    raw.clang_Cursor_getNumArguments.restype = ctypes.c_int
    raw.clang_Cursor_getArgument.argtypes = [ci.Cursor, ctypes.c_uint]
    raw.clang_Cursor_getArgument.restype = ci.Cursor
    raw.clang_Cursor_getStorageClass.argtypes = [ci.Cursor]
    raw.clang_Cursor_getStorageClass.restype = ctypes.c_int
    return raw


class _RawString(ctypes.Structure):
    """CXString without cindex's finaliser: spelling() disposes of it explicitly."""

    _fields_ = [("data", ctypes.c_void_p), ("flags", ctypes.c_uint)]


# clang_getNullCursor(): what libclang returns for "no such cursor".
_NULL_KIND = 70  # CXCursor_InvalidFile


def _cursor_or_none(res: ci.Cursor, tu: object) -> ci.Cursor | None:
    if res._kind_id == _NULL_KIND and not res.xdata and not any(res.data):
        return None
    res._tu = tu
    return res


def referenced(cursor: ci.Cursor) -> ci.Cursor | None:
    """cursor.referenced, without cindex's result converter (two more C calls)."""
    return _cursor_or_none(_raw_lib().clang_getCursorReferenced(cursor), cursor._tu)


def storage_class(cursor: ci.Cursor) -> int:
    """cursor.storage_class's value (a ci.StorageClass's), without building the enum."""
    return int(_raw_lib().clang_Cursor_getStorageClass(cursor))


def canonical(cursor: ci.Cursor) -> ci.Cursor:
    res = _raw_lib().clang_getCanonicalCursor(cursor)
    res._tu = cursor._tu
    return res


def spelling(cursor: ci.Cursor) -> str:
    """cursor.spelling, without cindex's converters."""
    raw = _raw_lib()
    s = raw.clang_getCursorSpelling(cursor)
    try:
        text = raw.clang_getCString(s)
        return text.decode("utf-8") if text else ""
    finally:
        raw.clang_disposeString(s)


def arguments(cursor: ci.Cursor) -> list[ci.Cursor]:
    """list(cursor.get_arguments()) (arguments of a call, parameters of a declaration).

    A flattened call's arguments are its flattened children (the same cursors: an argument
    is visited as a child of its call), so that the lowering of their subtrees reads the
    arrays too instead of asking libclang cursor by cursor; an argument that is no child
    (none is known) stays the cursor libclang gave. flatten.c has matched them already
    where each argument is a child: then no call into libclang at all."""
    if cursor.__class__ is FlatCursor:
        got = cursor._flat.arguments(cursor._i)  # (matched in C: flatten.c)
        if got is not None:
            return got  # type: ignore[return-value]
    raw, tu = _raw_lib(), cursor._tu
    get = raw.clang_Cursor_getArgument
    out = [_cursor_or_none(get(cursor, i), tu)
           for i in range(raw.clang_Cursor_getNumArguments(cursor))]
    if cursor.__class__ is FlatCursor and out:
        kids = {_identity(k): k for k in cursor._flat.children(cursor._i)}
        out = [a if a is None else kids.get(_identity(a), a) for a in out]
    return out


def _identity(c: ci.Cursor) -> tuple[int, int, int, int]:
    """An expression cursor's kind, xdata, node (the Stmt) and unit. Not its first pointer,
    the enclosing declaration: a visit of a call's children leaves it null where
    clang_Cursor_getArgument sets it."""
    d = c.data
    return c._kind_id, c.xdata, d[1] or 0, d[2] or 0


_VISITOR = ctypes.CFUNCTYPE(ctypes.c_int, ci.Cursor, ci.Cursor, ctypes.py_object)


def _collect(child: ci.Cursor, _parent: ci.Cursor, out: list[ci.Cursor]) -> int:
    out.append(child)
    return 1  # CXChildVisit_Continue


_COLLECT = _VISITOR(_collect)  # one callback object for every call, not one per call


def children(cursor: ci.Cursor) -> list[ci.Cursor]:
    """cursor.get_children() as a list, at half the cost (the lowering's most frequent call);
    a flattened cursor's from its subtree's arrays, with no call into libclang."""
    if cursor.__class__ is FlatCursor:
        return cursor._flat.children(cursor._i)  # type: ignore[return-value]
    out: list[ci.Cursor] = []
    _raw_lib().clang_visitChildren(cursor, _COLLECT, out)
    tu = cursor._tu
    for k in out:
        k._tu = tu  # keeps the unit alive as long as its cursors, as cindex does
    return out


class Locations:
    """Reads (file name, line, column, offset) of locations' expansion sites, one C call each.

    `loc.file`, `loc.line`, ... each repeat that call and build a new File and string; the
    lowering asks for the span of every node, and this halved its time. One instance per
    translation unit and thread: it caches file names by CXFile handle (handles die with
    their unit) and reuses its out-parameters.
    """

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self._file, self._line, self._col, self._off = (
            ctypes.c_void_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint())
        self._ptrs = tuple(ctypes.addressof(x) for x in (self._file, self._line, self._col,
                                                          self._off))

    def __call__(self, loc: ci.SourceLocation) -> tuple[str, int, int, int]:
        _raw_lib().clang_getInstantiationLocation(loc, *self._ptrs)
        key = self._file.value or 0
        return self.file_name(key), self._line.value, self._col.value, self._off.value

    def file_name(self, key: int) -> str:
        """The name of the file whose CXFile handle is `key` ('' for none)."""
        if not key:
            return ""
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = ci._CXString.from_result(
                _raw_lib().clang_getFileName(key))
        return name


# A file location's raw encoding (clang::SourceLocation, 32 bits in clang 18) is its offset in
# the SourceManager's address space; bit 31 marks a macro location.
MACRO_BIT = 1 << 31


_new_span = tuple.__new__  # Span(...) without the generated __new__'s Python frame


class Spans:
    """Cursors' extents as Spans of the main file, for one translation unit.

    Locations in the main file are decoded from the range's raw encodings (start of the main
    file plus offset) and lines from the source text: one C call per cursor instead of five.
    Macro locations and other files take the exact path through Locations; a test checks both
    paths agree on every cursor of the corpus.
    """

    def __init__(self, locations: Locations, main: str, size: int, base: int | None,
                 line_col: Callable[[int], tuple[int, int]]):
        self.loc, self.main, self.size, self.base = locations, main, size, base
        self.line_col = line_col
        self.types: dict[tuple[int, int | None], str] = {}
        self.endpoints: dict[int, tuple[str, int, int, int]] = {}
        self._extent = _raw_lib().clang_getCursorExtent
        # A flattened tree's spans are read in C (flat.spans), lines and columns included
        # where they are SourceFile's own (a subclass may map offsets elsewhere).
        owner = getattr(line_col, "__self__", None)
        starts = owner._line_starts if isinstance(owner, SourceFile) and \
            getattr(line_col, "__func__", None) is SourceFile.line_col else None
        self._line_starts = (ctypes.c_uint * len(starts))(*starts) \
            if starts and starts[-1] < 1 << 32 else None

    def span(self, cursor: ci.Cursor) -> Span:
        """The cursor's extent; outside the main file, its file, line and column with an
        empty range. (The lowering calls this once per IR node.)"""
        if cursor.__class__ is FlatCursor:
            return self._flat_span(cursor._flat, cursor._i)
        ext = self._extent(cursor)
        begin, end = ext.begin_int_data, ext.end_int_data
        base = self.base
        if base is not None:
            a, b = begin - base, end - base
            if not (begin | end) & MACRO_BIT and 0 <= a <= b <= self.size:
                return _new_span(Span, (self.main, a, b, *self.line_col(a)))
        fname, start, end, line, col = self.exact(ext)
        if fname != self.main:
            return Span(fname, 0, 0, line, col)
        return Span(fname, start, max(end, start), line, col)

    def _flat_span(self, flat: FlatTree, i: int) -> Span:
        """span() of node i of a flattened tree: the same two cases, read from arrays."""
        parts = flat.spans
        if parts is None:
            parts = flat.spans = flat_spans(flat, self.base, self.size, self._line_starts)
        kinds, starts, stops, lines, cols, files = parts
        if kinds[i] == 0:
            a = starts[i]
            if self._line_starts is not None:
                return _new_span(Span, (self.main, a, stops[i], lines[i], cols[i]))
            return _new_span(Span, (self.main, a, stops[i], *self.line_col(a)))
        fname, start, end = self.loc.file_name(files[i]), starts[i], stops[i]
        if fname != self.main:
            return Span(fname, 0, 0, lines[i], cols[i])
        return Span(fname, start, max(end, start), lines[i], cols[i])

    def offsets(self, cursor: ci.Cursor) -> tuple[int, int]:
        """The offsets where clang expands the ends of the cursor's extent, in whichever
        file (`cursor.extent.start.offset`, `cursor.extent.end.offset`)."""
        if cursor.__class__ is FlatCursor:
            flat, i = cursor._flat, cursor._i
            parts = flat.spans
            if parts is None:
                parts = flat.spans = flat_spans(flat, self.base, self.size, self._line_starts)
            return parts[1][i], parts[2][i]
        ext = cursor.extent
        return ext.start.offset, ext.end.offset

    def exact(self, ext: ci.SourceRange) -> tuple[str, int, int, int, int]:
        # Cached per endpoint: the cursors inside one macro expansion share many endpoints.
        raw, seen = _raw_lib(), self.endpoints
        first = seen.get(ext.begin_int_data)
        if first is None:
            first = seen[ext.begin_int_data] = self.loc(raw.clang_getRangeStart(ext))
        last = seen.get(ext.end_int_data)
        if last is None:
            last = seen[ext.end_int_data] = self.loc(raw.clang_getRangeEnd(ext))
        fname, line, col, start = first
        return fname, start, last[3], line, col

    def type_spelling(self, cursor: ci.Cursor) -> str:
        """The cursor's type as spelled; cached per type (a unit has few distinct types, and
        the same QualType, sugar included, always spells the same)."""
        raw = _raw_lib()
        if cursor.__class__ is FlatCursor:
            key = cursor._flat.type_key(cursor._i)
            text = self.types.get(key)
            if text is not None:
                return text
        t = raw.clang_getCursorType(cursor)
        key = (t._kind_id, t.data[0] or 0)
        text = self.types.get(key)
        if text is None:
            text = self.types[key] = ci._CXString.from_result(raw.clang_getTypeSpelling(t))
        return text


def main_file_base(tu: ci.TranslationUnit, path: str) -> int | None:
    """The raw encoding of offset 0 of the unit's main file (see Spans), or None."""
    try:
        loc = tu.get_location(path, 0)
    except Exception:  # noqa: BLE001 - only an optimisation: Spans falls back
        return None
    if loc.file is None or loc.int_data & MACRO_BIT:
        return None
    return int(loc.int_data)
