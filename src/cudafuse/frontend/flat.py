"""A function's cursors fetched from libclang in one C call (flatten.c), for the lowering.

The lowering asks each of a function's cursors for its children, its extent and its type.
Through ctypes that is three foreign calls per cursor and a Python callback per child: on a
20,000-line file (257,000 cursors) about half the lowering's time, more than libclang's parse
(docs/benchmarks.md, "Cost against input size"). flatten.c makes those calls in C, once per
cursor of a subtree, into arrays; `FlatCursor`s read them from there.

The helper is compiled on first use with the machine's C compiler against the libclang the
bindings loaded, and cached beside the shim's PCH. Where it cannot be built or loaded (no
compiler, CUDAFUSE_NO_FLATTEN set), `flatten` returns None and the lowering asks libclang
cursor by cursor: the same calls, the same IR (a test compares the two).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import clang.cindex as ci

from cudafuse.frontend.pch import cache_dir

_SOURCE = Path(__file__).resolve().parent / "flatten.c"


# The deepest subtree flattened (levels of cursors): the C walk recurses once per level, in
# C stack (a tree of 6,000 levels overflowed 8 MiB). Deeper functions are lowered cursor by
# cursor, where the lowering's own limit (lower.MAX_DEPTH) stops them with a diagnostic.
MAX_DEPTH = 1000
_TOO_DEEP = ctypes.c_size_t(-1).value


class FlatCursor(ci.Cursor):
    """A cursor of a flattened subtree: `_flat` holds the subtree's arrays, `_i` its index."""

    _flat: FlatTree
    _i: int


_NAMES = ("clang_visitChildren", "clang_getCursorExtent", "clang_getCursorType",
          "clang_getCursorReferenced", "clang_Cursor_Evaluate", "clang_EvalResult_getKind",
          "clang_EvalResult_getAsLongLong", "clang_EvalResult_getAsDouble",
          "clang_EvalResult_dispose", "clang_getRangeStart", "clang_getRangeEnd",
          "clang_getInstantiationLocation", "clang_getCursorBinaryOperatorKind",
          "clang_getCursorUnaryOperatorKind", "clang_Cursor_getNumArguments",
          "clang_Cursor_getArgument", "clang_getCanonicalCursor", "clang_getCursorLocation",
          "clang_getCursorSpelling", "clang_getCString", "clang_disposeString")


class _Api(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in _NAMES]


# Flat's arrays in flatten.c, in order: (field, element type).
_ARRAYS = (("cursor", FlatCursor), ("size", ctypes.c_uint), ("begin", ctypes.c_uint),
           ("end", ctypes.c_uint), ("type_kind", ctypes.c_int), ("type_data", ctypes.c_size_t),
           ("ref_kind", ctypes.c_int), ("ref_data0", ctypes.c_size_t),
           ("ref_data1", ctypes.c_size_t), ("eval_kind", ctypes.c_int),
           ("eval_int", ctypes.c_longlong), ("eval_double", ctypes.c_double),
           ("kind", ctypes.c_int), ("op", ctypes.c_int), ("arg_at", ctypes.c_uint),
           ("arg_n", ctypes.c_int), ("args", ctypes.c_uint), ("decl_data0", ctypes.c_size_t),
           ("name_at", ctypes.c_uint), ("name_len", ctypes.c_int),
           ("decl_file", ctypes.c_size_t), ("decl_off", ctypes.c_uint))
_POOL_PER_NODE = 16  # bytes of names per node (flatten.c's pool; a name past it is asked)


class _Out(ctypes.Structure):
    _fields_ = [("api", ctypes.POINTER(_Api)), *((name, ctypes.c_void_p) for name, _ in _ARRAYS),
                ("n_args", ctypes.c_size_t), ("pool", ctypes.c_void_p),
                ("pool_n", ctypes.c_size_t), ("pool_cap", ctypes.c_size_t),
                ("n", ctypes.c_size_t), ("cap", ctypes.c_size_t),
                ("depth", ctypes.c_uint), ("max_depth", ctypes.c_uint), ("too_deep", ctypes.c_int)]


class FlatTree:
    """One subtree in preorder: node i's children start at i + 1, and each child's next
    sibling is `sizes[child]` nodes on. The other arrays answer what the lowering asks."""

    __slots__ = ("arrays", "cursors", "sizes", "begins", "ends", "type_kinds", "type_data",
                 "kinds", "ops", "tu", "spans")

    def __init__(self, arrays: dict[str, ctypes.Array], n: int, tu: object):
        self.arrays, self.tu = arrays, tu
        self.spans: SpanArrays | None = None  # made by spans(), when a span is first asked
        self.cursors = arrays["cursor"]
        # As lists: read for every node (the rest, read for some, stay C arrays).
        self.sizes, self.begins, self.ends = (arrays[k][:n] for k in ("size", "begin", "end"))
        self.type_kinds, self.type_data = arrays["type_kind"][:n], arrays["type_data"][:n]
        # Each node's cursor kind and operator kind (flatten.c), read by the lowering's
        # dispatch without a cursor object.
        self.kinds, self.ops = arrays["kind"][:n], arrays["op"][:n]

    def cursor(self, i: int) -> FlatCursor:
        c = self.cursors[i]
        c._i, c._flat, c._tu = i, self, self.tu
        return c

    def children(self, i: int) -> list[FlatCursor]:
        sizes, cursors, tu = self.sizes, self.cursors, self.tu
        out = []
        j, end = i + 1, i + sizes[i]
        while j < end:
            c = cursors[j]
            c._i, c._flat, c._tu = j, self, tu
            out.append(c)
            j += sizes[j]
        return out

    def child_indices(self, i: int) -> list[int]:
        """The indices of node i's children, in order."""
        sizes = self.sizes
        out = []
        j, end = i + 1, i + sizes[i]
        while j < end:
            out.append(j)
            j += sizes[j]
        return out

    def arguments(self, i: int) -> list[FlatCursor] | None:
        """Call i's arguments as its flattened children, or None where flatten.c did not
        find each among them (clang_api.arguments then asks libclang)."""
        a = self.arrays
        count = a["arg_n"][i]
        if count < 0:
            return None
        at = a["arg_at"][i]
        return [self.cursor(j) for j in a["args"][at:at + count]]

    def declared(self, i: int) -> tuple[str, int, int, int] | None:
        """(spelling, declaration pointer, CXFile handle, offset of where clang expands its
        location) of variable or parameter i when it is its own canonical declaration, or
        None (not recorded: ask libclang)."""
        a = self.arrays
        size = a["name_len"][i]
        if size < 0:
            return None
        at = a["name_at"][i]
        return (a["pool"][at:at + size].decode("utf-8"), a["decl_data0"][i],
                a["decl_file"][i], a["decl_off"][i])

    def type_key(self, i: int) -> tuple[int, int]:
        """(kind, first data pointer) of node i's type: Spans.type_spelling's cache key."""
        return self.type_kinds[i], self.type_data[i]

    def referenced_key(self, i: int) -> tuple[int, int, int] | None:
        """(kind, first two data pointers) of the declaration name i refers to, or None."""
        a = self.arrays
        kind = a["ref_kind"][i]
        return None if kind < 0 else (kind, a["ref_data0"][i], a["ref_data1"][i])

    def value(self, i: int) -> int | float | None:
        """clang_api.evaluate's answer for literal i."""
        a = self.arrays
        kind = a["eval_kind"][i]
        return a["eval_int"][i] if kind == 1 else a["eval_double"][i] if kind == 2 else None


def flatten(cursor: ci.Cursor) -> FlatCursor | None:
    """`cursor` as the root of its flattened subtree, or None where the helper is missing."""
    helper = _helper()
    if helper is None:
        return None
    fn, api = helper
    cap = 1024
    while True:
        arrays = {name: (t * cap)() for name, t in _ARRAYS}
        pool = arrays["pool"] = (ctypes.c_char * (cap * _POOL_PER_NODE))()
        out = _Out(api, *(ctypes.addressof(arrays[name]) for name, _ in _ARRAYS), 0,
                   ctypes.addressof(pool), 0, cap * _POOL_PER_NODE, 0, cap, 0, MAX_DEPTH, 0)
        n = fn(cursor, ctypes.byref(out))
        if n == _TOO_DEEP:
            return None  # lowered cursor by cursor (see MAX_DEPTH)
        if n <= cap:
            break
        cap = n
    return FlatTree(arrays, n, cursor._tu).cursor(0)


class _SpansOut(ctypes.Structure):
    _fields_ = [("api", ctypes.POINTER(_Api)), ("cursor", ctypes.c_void_p),
                ("begin", ctypes.c_void_p), ("end", ctypes.c_void_p), ("n", ctypes.c_size_t),
                ("base", ctypes.c_longlong), ("size", ctypes.c_longlong),
                ("has_base", ctypes.c_int), ("line_starts", ctypes.c_void_p),
                ("n_lines", ctypes.c_size_t), ("kind", ctypes.c_void_p),
                ("start", ctypes.c_void_p), ("stop", ctypes.c_void_p),
                ("line", ctypes.c_void_p), ("col", ctypes.c_void_p), ("file", ctypes.c_void_p)]


# Per node of a tree: kind (0: main-file offsets, 1: where clang expands its ends), start and
# end offsets, line, column (kind 0: 0 when no line starts were given), CXFile (kind 1).
SpanArrays = tuple[list[int], list[int], list[int], list[int], list[int], list[int]]


def spans(tree: FlatTree, base: int | None, size: int,
          line_starts: ctypes.Array | None) -> SpanArrays:
    """The spans' parts of every node of `tree` (flatten.c's cudafuse_spans): for the main
    file starting at raw location `base` (None: unknown) and `size` bytes long, with lines
    and columns from `line_starts` (the offsets where its lines start) if given."""
    helper = _helper()
    assert helper is not None  # the tree was made by it
    n, a = len(tree.sizes), tree.arrays
    kind, file = (ctypes.c_int * n)(), (ctypes.c_size_t * n)()
    start, stop, line, col = ((ctypes.c_uint * n)() for _ in range(4))
    out = _SpansOut(helper[1], ctypes.addressof(tree.cursors), ctypes.addressof(a["begin"]),
                    ctypes.addressof(a["end"]), n, base or 0, size, base is not None,
                    ctypes.addressof(line_starts) if line_starts is not None else None,
                    len(line_starts) if line_starts is not None else 0,
                    *(ctypes.addressof(a) for a in (kind, start, stop, line, col, file)))
    _spans_fn()(ctypes.byref(out))
    return kind[:], start[:], stop[:], line[:], col[:], file[:]


@functools.cache
def _spans_fn() -> ctypes._CFuncPtr:
    fn = ctypes.CDLL(str(_build())).cudafuse_spans
    fn.argtypes = [ctypes.POINTER(_SpansOut)]
    fn.restype = None
    return fn


@functools.cache
def _helper() -> tuple[ctypes._CFuncPtr, ctypes._Pointer[_Api]] | None:
    """The helper's entry point and the libclang functions it calls, or None."""
    if os.environ.get("CUDAFUSE_NO_FLATTEN"):
        return None
    try:
        built = _build()
        if built is None:
            return None
        fn = ctypes.CDLL(str(built)).cudafuse_flatten
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ci.Cursor, ctypes.POINTER(_Out)]
    fn.restype = ctypes.c_size_t
    lib = ci.conf.lib
    api = _Api(*(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in _NAMES))
    return fn, ctypes.pointer(api)


def _build() -> Path | None:
    """The helper's shared library, compiled into the cache if it is not there yet."""
    key = hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:24]
    target = cache_dir() / f"flatten-{key}.so"
    if target.is_file():
        return target
    failed = target.with_suffix(".failed")
    if failed.is_file():
        return None  # it did not build here: not tried again on every run
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    cmd = [cc, "-O2", "-shared", "-fPIC", "-o", str(tmp), str(_SOURCE)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            failed.write_text(done.stderr)
            return None
        os.replace(tmp, target)  # atomic: concurrent runs never load half a library
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        tmp.unlink(missing_ok=True)
    return target
