"""Cooperative groups in a part: the part's own thread block group.

`cooperative_groups::this_thread_block()` reads the hardware's thread and block ids and its
`sync()` is barrier 0: inside a fused kernel it would be the fused block. Each part that uses
it gets a small block-group type of its own, written in the generated code
(`<prefix>_p<i>_thread_block`), built from the part's (shadowed) `threadIdx` and `blockIdx`:
its `sync()` is the part's barrier (thread mode: `bar.sync i, Ni`; block mode:
`__syncthreads()`, as the part runs whole blocks), `size()`, `thread_rank()`,
`thread_index()`, `group_dim()` and `group_index()` are the part's. The part's code (kernel
body and per-part helper copies) is edited at three kinds of tokens:

- calls of `[ns::]this_thread_block(...)` become `<ns>_thread_block(threadIdx, blockIdx)`;
- the type name `[ns::]thread_block` becomes `<ns>_thread_block`;
- calls of `[ns::]tiled_partition` become `<ns>_tiled_partition`, which forwards to
  cooperative groups for any other parent (a tile) and, for the part's block, returns the
  tile of the real block (the same lanes: a part starts at a warp boundary, and tiles have at
  most 32 threads) with the meta group rank and size of the part's block.

Everything warp-level (tiles' shuffles, votes, `sync()`, `cg::reduce`, `coalesced_threads()`)
is unaffected: no warp holds threads of both parts. Grid-wide groups are refused (their ranks
and sizes, and `grid.sync()`, would be the fused grid's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import code_bytes
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.source import Span

# Groups of the whole grid (or of several, or of a cluster): refused in both modes.
GRID = ("this_grid", "this_multi_grid", "this_cluster")
# Cooperative-groups calls that wait for the group (what an early return must not precede
# in thread mode, where the part's block group is a counted barrier).
WAITS = ("sync", "barrier_wait", "wait", "wait_prior")
_QUAL = rb"(?:::\s*)?(?:[A-Za-z_]\w*\s*::\s*)*"
_BLOCK_CALL = re.compile(rb"^" + _QUAL + rb"this_thread_block\s*\(")
_TILED_CALL = re.compile(rb"^" + _QUAL + rb"tiled_partition\b")
_TILE_SIZE = re.compile(rb"^" + _QUAL + rb"tiled_partition\s*<\s*([^<>]*?)\s*>")
_TYPE = re.compile(rb"(?<![\w.])(?<!->)" + _QUAL + rb"\bthread_block\b")


def is_cg(call: n.Call) -> bool:
    """A call of something declared in a cooperative_groups header (a member or a free
    function), or, unresolved, one of its free functions by name."""
    decl = call.callee_decl or ""
    if "@" in decl:
        return "cooperative_groups" in decl.split("@", 1)[1]
    return call.callee.split("::")[-1] in (*GRID, "this_thread_block", "tiled_partition")


def cg_name(call: n.Call) -> str:
    return call.callee.split("::")[-1]


def cg_calls(node: n.Node) -> list[n.Call]:
    return [c for c in node.walk() if isinstance(c, n.Call) and is_cg(c)]


def waits(node: n.Node) -> list[n.Call]:
    """Calls that wait for a group: cooperative groups' sync() and friends, and calls of those
    names on a template parameter's group (unresolved: counted, to be safe)."""
    return [c for c in node.walk() if isinstance(c, n.Call) and cg_name(c) in WAITS and
            (is_cg(c) or not c.callee_decl)]


def names_block(unit: TranslationUnit, fn: Function) -> bool:
    """`fn` uses the block group: calls this_thread_block() or writes the type name."""
    if any(cg_name(c) == "this_thread_block" for c in cg_calls(fn.body or fn)):
        return True
    if fn.span.file != unit.path:
        return False
    return _TYPE.search(code_bytes(unit.code[fn.span.start:fn.span.end])) is not None


@dataclass(frozen=True)
class Bad:
    span: Span
    why: str


def tile_size(unit: TranslationUnit, call: n.Call) -> int | None:
    """N of a `tiled_partition<N>(...)` written with an integer literal, else None."""
    if call.span.file != unit.path:
        return None
    m = _TILE_SIZE.match(unit.code[call.span.start:call.span.end])
    if m is None:
        return None
    text = m.group(1).decode().rstrip("uUlL")
    return int(text, 0) if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", text) else None


_GENERIC = re.compile(r"\bthread_group\b")
_BLOCK_TYPE = re.compile(r"\bthread_block\b")


def problems(unit: TranslationUnit, node: n.Node) -> list[Bad]:
    """What no edit can give the part: grid groups, calls that cannot be edited (written
    inside a macro expansion), tiles of more than 32 threads, the block group held in a
    generic thread_group."""
    out: list[Bad] = []
    graph = CallGraph(unit)
    generic = "a cooperative_groups::thread_group cannot hold the part's block group (a type " \
        "of the fused kernel's own); take the group by its type, or as a template parameter"
    for x in node.walk():
        if isinstance(x, n.VarDecl) and x.init is not None and _GENERIC.search(x.var_type) \
                and _BLOCK_TYPE.search(x.init.type):
            out.append(Bad(x.span, generic))
        elif isinstance(x, n.Call) and not is_cg(x):
            target = graph.resolve(x)
            if target is None:
                continue
            for prm, arg in zip(target.params, x.args, strict=False):
                if _GENERIC.search(prm.type) and _BLOCK_TYPE.search(arg.type):
                    out.append(Bad(arg.span, f"'{target.name}' takes it as '{prm.type}': " +
                                   generic))
    for call in cg_calls(node):
        name = cg_name(call)
        text = unit.code[call.span.start:call.span.end] if call.span.file == unit.path else b""
        if name in GRID:
            out.append(Bad(call.span, f"cooperative groups' {name}() is the whole fused grid "
                           "(its ranks and sizes, and a grid-wide sync(), which also needs a "
                           "cooperative launch); grid groups are not supported"))
        elif name == "memcpy_async" and call.args and _BLOCK_TYPE.search(call.args[0].type):
            out.append(Bad(call.span, "memcpy_async on the block group: CUDA's accepts only "
                           "its own group types, not the part's block group (copy with the "
                           "part's threads and sync(), or use a tile)"))
        elif name == "this_thread_block" and not _BLOCK_CALL.match(text):
            out.append(Bad(call.span, "a this_thread_block() inside a macro expansion cannot "
                           "be given the part's block group; write it out"))
        elif name == "tiled_partition":
            if not _TILED_CALL.match(text):
                out.append(Bad(call.span, "a tiled_partition() inside a macro expansion cannot "
                               "be given the part's block group; write it out"))
            elif (size := tile_size(unit, call)) is not None and size > 32:
                out.append(Bad(call.span, f"a tile of {size} threads spans several warps "
                               "(cooperative groups synchronise it with barriers of their own, "
                               "over the fused block); tiles of up to 32 threads are supported"))
    return out


def edits(unit: TranslationUnit, node: n.Node, span: Span, ns: str
          ) -> list[tuple[int, int, str]]:
    """Edits (absolute start, end, text) giving the code of `node`, written in `span`, the
    part's block group `<ns>_thread_block` (see the module docstring). Calls that cannot be
    edited are left alone: problems() reports them."""
    data = unit.code  # read as clang does; the edits' offsets are the file's
    out: list[tuple[int, int, str]] = []
    for call in cg_calls(node):
        if call.span.file != unit.path:
            continue
        name = cg_name(call)
        text = data[call.span.start:call.span.end]
        if name == "this_thread_block" and _BLOCK_CALL.match(text):
            out.append((call.span.start, call.span.end,
                        f"{ns}_thread_block(threadIdx, blockIdx)"))
        elif name == "tiled_partition" and (m := _TILED_CALL.match(text)):
            out.append((call.span.start, call.span.start + m.end(), f"{ns}_tiled_partition"))
    if span.file == unit.path:
        taken = sorted((s, e) for s, e, _ in out)
        code = code_bytes(data[span.start:span.end])
        for m in _TYPE.finditer(code):
            start, end = span.start + m.start(), span.start + m.end()
            if not any(s < end and start < e for s, e in taken):
                out.append((start, end, f"{ns}_thread_block"))
    return out


TILE_DEFINITION = """\
// A tile of N <= 32 threads of a part's block: the tile of the real block (the same lanes, as
// a part starts at a warp boundary) with the meta group rank and size of the part's block.
#if defined(__CUDAFUSE_EMU__)
template <unsigned N>
__device__ cooperative_groups::thread_block_tile<N> cudafuse_part_tile(unsigned rank,
                                                                       unsigned size) {
  return cooperative_groups::thread_block_tile<N>(rank, size);
}
#elif defined(__CUDAFUSE_SHIM__)
template <unsigned N>
__device__ cooperative_groups::thread_block_tile<N> cudafuse_part_tile(unsigned, unsigned);
#else
template <unsigned N>
struct cudafuse_part_tile_t : cooperative_groups::thread_block_tile<N> {
  __device__ cudafuse_part_tile_t(unsigned rank, unsigned size)
      : cooperative_groups::thread_block_tile<N>(
            cooperative_groups::tiled_partition<N>(cooperative_groups::this_thread_block())) {
    this->_data.coalesced.metaGroupRank = rank;
    this->_data.coalesced.metaGroupSize = size;
  }
};
template <unsigned N>
__device__ cooperative_groups::thread_block_tile<N> cudafuse_part_tile(unsigned rank,
                                                                       unsigned size) {
  return cudafuse_part_tile_t<N>(rank, size);
}
#endif
"""


def group_text(ns: str, part_index: int, display: str, x: int, y: int, z: int,
               mode: str) -> str:
    """The part's block group type and its tiled_partition overloads."""
    count = x * y * z
    sync = f"CUDAFUSE_BAR_SYNC({part_index}, {count})" if mode == "thread" else \
        "__syncthreads()"
    how = (f"its sync() is the part's barrier {part_index} for its {count} threads" if
           mode == "thread" else "its sync() is the block's (the part runs whole blocks)")
    cg = "cooperative_groups"
    dims = f"{x}u, {y}u, {z}u"
    return f"""\
// Part {part_index} ('{display}'): cooperative groups' thread block as the part sees it
// (its this_thread_block()); {how}.
struct {ns}_thread_block {{
  uint3 cf_t, cf_b;  // the part's threadIdx and blockIdx
  __device__ {ns}_thread_block(uint3 t, uint3 b) : cf_t(t), cf_b(b) {{}}
  struct arrival_token {{}};
  __device__ void sync(const char * = nullptr, int = 0) const {{ {sync}; }}
  __device__ arrival_token barrier_arrive() const {{ return arrival_token(); }}
  __device__ void barrier_wait(arrival_token &&) const {{ sync(); }}
  __device__ unsigned size() const {{ return {count}u; }}
  __device__ unsigned num_threads() const {{ return {count}u; }}
  __device__ unsigned thread_rank() const {{ return cf_t.x + {x}u * (cf_t.y + {y}u * cf_t.z); }}
  __device__ dim3 group_index() const {{ return dim3(cf_b.x, cf_b.y, cf_b.z); }}
  __device__ dim3 thread_index() const {{ return dim3(cf_t.x, cf_t.y, cf_t.z); }}
  __device__ dim3 group_dim() const {{ return dim3({dims}); }}
  __device__ dim3 dim_threads() const {{ return dim3({dims}); }}
}};
template <unsigned N, class P>
__device__ auto {ns}_tiled_partition(const P &parent)
    -> decltype({cg}::tiled_partition<N>(parent)) {{
  return {cg}::tiled_partition<N>(parent);
}}
template <unsigned N>
__device__ {cg}::thread_block_tile<N> {ns}_tiled_partition(const {ns}_thread_block &b) {{
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "a tile of a fused part's block has 1, 2, 4, ..., 32 threads");
  return cudafuse_part_tile<N>(b.thread_rank() / N, (b.size() + N - 1) / N);
}}
template <class P>
__device__ auto {ns}_tiled_partition(const P &parent, unsigned n)
    -> decltype({cg}::tiled_partition(parent, n)) {{
  return {cg}::tiled_partition(parent, n);
}}
// A dynamic tile (a thread_group: size, rank and sync only, all within a warp).
__device__ inline {cg}::thread_group {ns}_tiled_partition(const {ns}_thread_block &,
                                                           unsigned n) {{
  return {cg}::tiled_partition({cg}::this_thread_block(), n);
}}
"""
