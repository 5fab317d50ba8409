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
