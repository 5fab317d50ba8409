"""Everything `analyze` knows about one kernel, collected in a frozen `KernelFacts`."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from cudafuse.analysis.access import bad_atom_reason, coords_pred
from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.classify import LoadClass, StoreClass, classify_load, classify_store
from cudafuse.analysis.delinearise import kernel_width
from cudafuse.analysis.evaluate import Access, Evaluator, exits
from cudafuse.analysis.shared_memory import shared_reach
from cudafuse.analysis.symbolic import (
    ONE,
    Poly,
    block_size_assumptions,
    coord,
    coord_dims,
    pred_coords,
    to_coords,
)
from cudafuse.analysis.unit_index import unit_index
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

_SIZES = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "short": 2,
          "unsigned short": 2, "half": 2, "__half": 2, "int": 4, "unsigned int": 4,
          "unsigned": 4, "float": 4, "long": 8, "unsigned long": 8, "long long": 8,
          "unsigned long long": 8, "double": 8, "size_t": 8, "float2": 8, "int2": 8,
          "float4": 16, "int4": 16, "double2": 16, "uchar4": 4, "float3": 12, "int3": 12}
_BARRIERS = ("__syncthreads", "__syncthreads_count", "__syncthreads_and",
             "__syncthreads_or", "__syncwarp")
_WARP = re.compile(r"^__(shfl\w*|ballot_sync|any_sync|all_sync|activemask|match_\w+|"
                   r"reduce_\w+_sync|uni_sync)$")
# Cooperative groups' calls that wait for the group; every other call into the library
# (shuffles, votes, reduce, scans, even this_thread_block) is counted as a warp collective:
# what it computes depends on the group's other threads or on the hardware's thread ids.
_CG_BARRIERS = frozenset({"sync", "barrier_wait", "barrier_arrive", "wait", "wait_prior"})


# Texture fetches (tex1Dfetch, tex2D, tex2DLod, texCubemap...) and surface accesses
# (surf2Dread, surf2Dwrite...): memory reached through an object, not a pointer.
_TEXTURE = re.compile(r"^(tex|surf)(1D|2D|3D|Cubemap)\w*$")


def _declared_by_cuda(call: n.Call) -> bool:
    """Declared outside the user's files: cudafuse's CUDA declarations (a user's own
    function named tex2D is an ordinary call)."""
    path = call.callee_decl.partition("@")[2]
    return "/frontend/include/" in path or "/cuda_api/" in path or not path


def is_cooperative_groups_call(call: n.Call) -> bool:
    """A call of a function declared in a cooperative_groups header (the stand-in or the
    user's own)."""
    path = call.callee_decl.partition("@")[2].rpartition(":")[0]
    return path.endswith("/cooperative_groups.h") or "/cooperative_groups/" in path


@dataclass(frozen=True)
class ParamFacts:
    name: str
    type: str
    is_pointer: bool
    pointee: str = ""
    const: bool = False
    restrict: bool = False
    reads: bool = False
    writes: bool = False
    atomic: bool = False
    aggregate: bool = False  # a struct/class by value: accesses through its members not followed


@dataclass(frozen=True)
class SharedVar:
    name: str
    elem_type: str
    size_bytes: int | None
    dynamic: bool
    line: int
    via: str = ""  # '' declared in the kernel; else the helper, member function or header

@dataclass(frozen=True)
class Op:
    """A use of an intrinsic (barrier, warp op, atomic) or an early return / asm, by line."""

    name: str
    line: int


@dataclass(frozen=True)
class Mapping:
    dims: tuple[str, ...]  # x, y, z with a global coordinate
    variables: tuple[tuple[str, str], ...]  # (local, its value in coordinates)
    grid_stride: tuple[tuple[str, str], ...]  # (loop variable, dim)
    guard: tuple[tuple[str, str], ...]  # (dim, bound): threads run only where D < bound
    guard_text: str = ""
    guard_form: str = ""  # return (early exit) or if (enclosing)
    assumptions: tuple[str, ...] = ()  # e.g. blockDim.x == 128 (from blockIdx.x * 128 + ...)


@dataclass(frozen=True)
class KernelFacts:
    name: str
    line: int
    params: tuple[ParamFacts, ...]
    builtins: tuple[str, ...]
    mapping: Mapping
    shared: tuple[SharedVar, ...]
    barriers: tuple[Op, ...]
    warp_ops: tuple[Op, ...]
    atomics: tuple[Op, ...]
    early_returns: tuple[int, ...]
    asm: tuple[int, ...]
    calls: tuple[str, ...]
    constants: tuple[str, ...]
    loads: tuple[LoadClass, ...]
    stores: tuple[StoreClass, ...]
    accesses: tuple[Access, ...]
    textures: tuple[Op, ...] = ()  # texture fetches and surface reads/writes

    def load(self, pointer: str) -> LoadClass | None:
        return next((c for c in self.loads if c.pointer == pointer), None)

    def store(self, pointer: str) -> StoreClass | None:
        return next((c for c in self.stores if c.pointer == pointer), None)


_ARITH = re.compile(r"\b(int|float|double|char|bool|short|long|unsigned|signed|size_t|half|"
                    r"u?int\d+_t|dim3)\b")


def _aggregate(t: str) -> bool:
    return elem_size(t) is None and not _ARITH.search(t)


@functools.lru_cache(maxsize=4096)  # (asked per parameter and access of every kernel)
def elem_size(t: str) -> int | None:
    t = " ".join(re.sub(r"\b(const|volatile|__restrict)\b", "", t).split())
    return _SIZES.get(t)


@dataclass
class _Scan:
    """What one walk over the kernel and its helpers finds (syntactic facts)."""

    barriers: list[Op]
    warp: list[Op]
    atomics: list[Op]
    asm: list[int]
    builtins: set[str]
    shared: list[SharedVar]
    globals_used: set[str]  # decl ids of namespace-scope variables referenced
    written_roots: set[str]  # decl ids of variables assigned, incremented or atomically updated
    shared_decls: set[str]  # decl ids of __shared__ variables declared in the bodies
    textures: list[Op]


def _shared_var(node: n.VarDecl) -> SharedVar:
    elem = node.var_type.split("[")[0].strip()
    dynamic = "extern" in node.storage or any(d is None for d in node.array_dims)
    size = elem_size(elem)
    for d in node.array_dims:
        size = size * d.value if size is not None and isinstance(d, n.IntLit) else None
    return SharedVar(node.name, elem, None if dynamic else size, dynamic, node.span.line)


def _scan(bodies: list[n.Node]) -> _Scan:
    sc = _Scan([], [], [], [], set(), [], set(), set(), set(), [])
    # Each class of node from the body's grouping (Compound.nodes_of), each in walk order:
    # every list below is fed by one class only, so the order of each is the walk's.
    targets: list[n.Expr] = []
    for body in bodies:
        for call in body.nodes_of(n.Call):
            name = call.callee.split("::")[-1]
            if is_cooperative_groups_call(call):
                (sc.barriers if name in _CG_BARRIERS else sc.warp).append(
                    Op(f"cooperative_groups::{name}", call.span.line))
            elif name in _BARRIERS:
                sc.barriers.append(Op(name, call.span.line))
            elif _WARP.match(name):
                sc.warp.append(Op(name, call.span.line))
            elif name.startswith("atomic"):
                sc.atomics.append(Op(name, call.span.line))
            elif _TEXTURE.match(name) and _declared_by_cuda(call):
                sc.textures.append(Op(name, call.span.line))
            if call.callee.startswith("atomic") and call.args:
                targets.append(call.args[0])
        sc.asm += [a.span.line for a in body.nodes_of(n.Asm)]
        for m in body.nodes_of(n.Member):
            if isinstance(m.base, n.Ref) and m.base.kind == "builtin":
                sc.builtins.add(f"{m.base.name}.{m.field_name}")
        for r in body.nodes_of(n.Ref):
            if r.kind == "builtin" and r.name == "warpSize":
                sc.builtins.add("warpSize")
            elif r.kind == "global":
                sc.globals_used.add(r.decl)
        for v in body.nodes_of(n.VarDecl):
            if "shared" in v.storage:
                sc.shared.append(_shared_var(v))
                sc.shared_decls.add(v.decl)
        targets += [b.lhs for b in body.nodes_of(n.Binary) if b.is_assignment]
        targets += [u.operand for u in body.nodes_of(n.Unary) if u.op in ("++", "--")]
    for target in targets:
        root = _root_ref(target)
        if root is not None:
            sc.written_roots.add(root.decl)
    return sc


def _root_ref(e: n.Expr) -> n.Ref | None:
    """The variable an lvalue (or address) expression is rooted in: s, s[i][j], &s[i], *p."""
    while True:
        if isinstance(e, n.Ref):
            return e
        if isinstance(e, n.Index):
            e = e.base
        elif isinstance(e, (n.Cast, n.Unary)):
            e = e.operand
        elif isinstance(e, n.Member):
            e = e.base
        else:
            return None


def _early_returns(body: n.Compound) -> list[int]:
    last = body.body[-1] if body.body else None
    return [s.span.line for s in body.nodes_of(n.Return) if s is not last]


def _mapping(unit: TranslationUnit, fn: Function, ev: Evaluator, accesses: list[Access],
             width: Poly | None = None) -> Mapping:
    variables: list[tuple[str, str]] = []
    for name, value in ev.values.values():
        v = to_coords(value)
        if coord_dims(v) and bad_atom_reason(v) is None:
            variables.append((name, str(v)))
    dims = set()
    for name, value in ev.values.values():
        v = to_coords(value)
        if v.single_atom() is not None and coord_dims(v) and name:
            dims |= coord_dims(v)
    for _, d in ev.grid_stride:
        dims.add(d)
    if width is not None:  # a 2-D image walked by a 1-D grid (analysis/delinearise.py)
        dims.add("y")
    for a in accesses:
        if a.base_kind == "param":
            idx = to_coords(a.index)
            if bad_atom_reason(idx) is None:
                dims |= coord_dims(idx)
    guard: dict[str, str] = {}
    stores = [a for a in accesses if a.mode == "store" and a.base_kind == "param"]
    if stores:
        for p in stores[0].path:
            for c in coords_pred(p).conjuncts():
                if c.op != "ge" or c.poly is None:
                    continue
                for d in sorted(coord_dims(c.poly)):
                    b = c.poly + Poly.atom(coord(d)) + ONE
                    if not coord_dims(b) and d not in guard:
                        guard[d] = str(b)
    text, form = _guard_stmt(unit, fn)
    assume = set(ev.assumptions)
    for a in accesses:
        if to_coords(a.index) != a.index:  # only a fold can rest on a block size
            assume |= block_size_assumptions(a.index)
    return Mapping(tuple(sorted(dims)), tuple(variables), tuple(ev.grid_stride),
                   tuple(sorted(guard.items())), text, form,
                   tuple(f"blockDim.{d} == {b}" for d, b in sorted(assume)))


def _guard_stmt(unit: TranslationUnit, fn: Function) -> tuple[str, str]:
    if fn.body is None:
        return "", ""
    for s in fn.body.body:
        if isinstance(s, n.If):
            form = "return" if exits(s.then) and s.else_ is None else "if"
            text = " ".join(unit.text(s.cond.span).split())
            return text, form
    return "", ""


def analyze_kernel(unit: TranslationUnit, fn: Function,
                   graph: CallGraph | None = None) -> KernelFacts:
    """All facts about kernel `fn` of `unit` (pass one CallGraph when analysing many)."""
    graph = graph or CallGraph(unit)
    helpers = graph.transitive(fn)
    bodies: list[n.Node] = [fn.body] if fn.body else []
    bodies += [f.body for f in helpers if f.body is not None]
    sc = _scan(bodies)
    # A kernel using cooperative groups may take its thread's index and the block's size
    # from them (thread_rank(), thread_index(), size()), which the scan does not see as
    # threadIdx/blockDim: its blocks are not taken for one thread each.
    cooperative = any(o.name.startswith("cooperative_groups::") for o in (*sc.warp,
                                                                         *sc.barriers))
    block_coords = frozenset() if cooperative else frozenset(
        d for d in "xyz" if f"blockIdx.{d}" in sc.builtins and not {
            f"threadIdx.{d}", f"blockDim.{d}"} & sc.builtins)
    ev = Evaluator(unit, block_coords)
    accesses = ev.run(fn)
    index = unit_index(unit)
    shared = []
    for use in shared_reach(unit, fn, graph).uses:
        if use.decl is not None:
            var = _shared_var(use.decl)
            shared.append(SharedVar(var.name, var.elem_type, var.size_bytes, var.dynamic,
                                    var.line, use.via))
        elif use.kind == "global":
            g = index.global_at[use.span]
            shared.append(SharedVar(g.name, g.type.split("[")[0].strip(), None, g.is_extern,
                                    g.span.line, use.via))
        else:  # a header the front end does not lower declares shared memory
            shared.append(SharedVar(use.name, "?", None, True, 0, use.via))
    constants = sorted({name for decl in sc.globals_used
                        for name in index.constant_names.get(decl, ())})
    barriers, warp, atomics, asm, builtins = sc.barriers, sc.warp, sc.atomics, sc.asm, \
        sc.builtins
    width = kernel_width([(to_coords(a.index), tuple(pred_coords(p) for p in a.path))
                          for a in accesses if a.base_kind == "param"])
    mapping = _mapping(unit, fn, ev, accesses, width)
    dims = set(mapping.dims)
    hazard = ""
    shared_ids = sc.shared_decls.union(index.shared_globals)
    if any(a.base_kind == "shared" and a.mode in ("store", "atomic") for a in accesses) or \
            sc.written_roots & shared_ids:
        hazard = "threads exchange data through shared memory"
    elif any(o.name.startswith("cooperative_groups::") for o in (*warp, *sc.barriers)):
        hazard = "threads cooperate through cooperative groups"
    elif warp:
        hazard = "threads exchange data through warp shuffles/votes"
    params, loads, stores = [], [], []
    all_stores = [a for a in accesses if a.mode == "store" and a.base_kind == "param"]
    for p in fn.params:
        mine = [a for a in accesses if a.base == p.decl]
        modes = {a.mode for a in mine}
        params.append(ParamFacts(p.name, p.type, p.is_pointer, p.pointee, p.pointee_const,
                                 p.restrict, bool(modes & {"load", "escape"}),
                                 bool(modes & {"store", "escape"}), "atomic" in modes,
                                 _aggregate(p.type) and not p.is_pointer))
        reads = [a for a in mine if a.mode != "store"]
        writes = [a for a in mine if a.mode in ("store", "atomic", "escape")]
        if reads:
            # Threads exchanging data make a kernel's values no function of its element
            # (its view refuses it as a producer), but each thread's own reads of a buffer
            # it does not write read the same elements whoever computed them.
            loads.append(classify_load(p.name, reads, dims, bool(writes),
                                       hazard if writes else "", all_stores, width))
        if writes:
            stores.append(classify_store(p.name, writes, dims, width))
    return KernelFacts(
        fn.name, fn.span.line, tuple(params), tuple(sorted(builtins)), mapping,
        tuple(shared), tuple(barriers), tuple(warp), tuple(atomics),
        tuple(_early_returns(fn.body)) if fn.body else (), tuple(asm),
        tuple(f.name for f in helpers), tuple(constants), tuple(loads), tuple(stores),
        tuple(accesses), tuple(sc.textures))
