"""libclang access: the wheel's library, plus the C entry points its Python bindings lack."""

from __future__ import annotations

import ctypes
import functools

import clang.cindex as ci

# CXUnaryOperatorKind (clang-c/Index.h, LLVM 17+).
_UNARY = {1: ("++", True), 2: ("--", True), 3: ("++", False), 4: ("--", False), 5: ("&", False),
          6: ("*", False), 7: ("+", False), 8: ("-", False), 9: ("~", False), 10: ("!", False)}
_EVAL_INT, _EVAL_FLOAT = 1, 2


@functools.cache
def _lib() -> ctypes.CDLL:
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
    return lib


def binary_op(cursor: ci.Cursor) -> str:
    lib = _lib()
    kind = lib.clang_getCursorBinaryOperatorKind(cursor)
    return ci._CXString.from_result(lib.clang_getBinaryOperatorKindSpelling(kind))


def unary_op(cursor: ci.Cursor) -> tuple[str, bool]:
    """(operator, is_postfix); ('?', False) for kinds the IR does not model."""
    return _UNARY.get(_lib().clang_getCursorUnaryOperatorKind(cursor), ("?", False))


def evaluate(cursor: ci.Cursor) -> int | float | None:
    """Clang's constant folding of an expression or an initialised variable, if it folds."""
    lib = _lib()
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
    return bool(_lib().clang_Location_isFromMainFile(cursor.location))




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
    return raw


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
        line, col, off = self._line.value, self._col.value, self._off.value
        if not key:
            return "", line, col, off
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = ci._CXString.from_result(
                _raw_lib().clang_getFileName(key))
        return name, line, col, off
