"""Which kernels' blocks the emulator may run on several OS threads at once.

The blocks of one launch share nothing but global memory, so the order in which they run
changes nothing, except through what makes one block observe another or the host observe
their order: atomics (the old value an atomicAdd returns, the rounding of float sums; an
integer add, sub, and, or, xor, min or max whose old value is not used is the exception: the
memory it leaves is the same in any order, and the emulator makes those atomic), fences
between blocks (`__threadfence`: a block that reads what others counted),
device printf and assert (the lines' order), device malloc/new, clock() (the emulator's
counter), launches and runtime calls in device code, grid synchronisation, and a `static`
variable of a device function. A kernel that reaches none of these, through the functions it
calls (by name, every overload), runs its blocks in parallel; a call whose body cannot be
seen (emu/fibers.py's CalleeBodies) keeps it serial (cudafuse_emu_parallel.h); the
others run serially, as do launches the front end did not see. A race between blocks on
plain global memory is the program's own, on the GPU as here.
"""

from __future__ import annotations

from cudafuse.emu.fibers import CalleeBodies, local_names
from cudafuse.ir import nodes as n
from cudafuse.ir.program import TranslationUnit

# Calls whose effect depends on the order of blocks (prefix match for the atomic families).
_ORDERED_PREFIXES = ("atomic", "__atomic", "__sync_", "cuda", "__cf_atomic")
_ORDERED_CALLS = frozenset({
    "printf", "vprintf", "puts", "fprintf", "__assert_fail", "__assertfail", "assert",
    "malloc", "free", "realloc", "calloc", "memalign", "aligned_alloc",
    "clock", "clock64", "__globaltimer", "globaltimer",
    "this_grid", "this_multi_grid", "sync_grids",
    # libcu++ atomics (cuda::atomic, cuda::atomic_ref and their std:: forms)
    "fetch_add", "fetch_sub", "fetch_and", "fetch_or", "fetch_xor", "fetch_min",
    "fetch_max", "exchange", "compare_exchange_weak", "compare_exchange_strong",
})
_ORDERED_EXPRS = frozenset({"CXX_NEW_EXPR", "CXX_DELETE_EXPR"})
_FENCES = frozenset({"__threadfence", "__threadfence_system"})
# Integer atomics whose final memory does not depend on the order, when their old value is
# dropped (a statement of its own): cudafuse_emu.h makes these real atomic operations.
_COMMUTATIVE = frozenset(f"{op}{scope}" for op in ("atomicAdd", "atomicSub", "atomicAnd",
                                                   "atomicOr", "atomicXor", "atomicMin",
                                                   "atomicMax")
                         for scope in ("", "_block", "_system"))
_INTEGERS = frozenset({"int", "unsigned int", "unsigned", "long long", "long long int",
                       "unsigned long long", "unsigned long long int"})


def _ordered_call(name: str) -> bool:
    return name in _ORDERED_CALLS or name in _FENCES or name.startswith(_ORDERED_PREFIXES)


def _dropped_integer_atomics(body: n.Node) -> set[int]:
    """ids of the commutative integer atomics in `body` whose result is not used."""
    found: set[int] = set()
    for node in body.walk():
        if not isinstance(node, n.ExprStmt):
            continue
        e = node.expr
        while isinstance(e, n.Cast) and e.type.strip() == "void":
            e = e.operand
        if (isinstance(e, n.Call) and e.callee in _COMMUTATIVE
                and " ".join(e.type.replace("const", "").split()) in _INTEGERS):
            found.add(id(e))
    return found


def _reason(node: n.Node, dropped: set[int]) -> str:
    """Why this node makes the blocks' order observable, or ''."""
    if isinstance(node, n.Call) and id(node) not in dropped:
        name = node.callee or (node.callee_expr.field_name
                               if isinstance(node.callee_expr, n.Member) else "")
        return f"calls {name}" if name and _ordered_call(name) else ""
    if isinstance(node, n.KernelLaunch):
        return "launches a kernel"
    if isinstance(node, n.OtherExpr) and node.kind in _ORDERED_EXPRS:
        return "allocates device memory (new/delete)"
    if (isinstance(node, n.VarDecl) and "static" in node.storage
            and "shared" not in node.storage and "const" not in node.var_type.split()):
        return f"has a static variable '{node.name}'"
    return ""


def serial_kernels(unit: TranslationUnit) -> dict[str, str]:
    """Each kernel (by name) whose blocks must run in order, with the reason; a kernel the
    front end did not see is not listed and is serial too (see parallel_kernels)."""
    calls: dict[str, set[str]] = {}
    why: dict[str, str] = {}
    index = CalleeBodies(unit)
    for fn in index.bodies:  # the unit's functions with a body, header helpers and methods
        assert fn.body is not None
        out = calls.setdefault(fn.name, set())
        dropped = _dropped_integer_atomics(fn.body)
        locals_ = local_names(fn)
        for node in fn.body.walk():
            reason = _reason(node, dropped)
            if isinstance(node, n.Call):
                name = node.callee or (node.callee_expr.field_name
                                       if isinstance(node.callee_expr, n.Member) else "")
                if name:
                    out.add(name)
                if not reason and name and index.of(fn, node, locals_) is None:
                    # What it runs is not seen (declared only, a pointer, a callable
                    # parameter): it may reach an atomic whose order shows.
                    # (An unnamed call, an operator on template-typed operands, is not.)
                    reason = f"calls {name} whose body is not seen"
            if reason and fn.name not in why:
                why[fn.name] = f"{reason} ({fn.name}, line {node.span.line})" \
                    if node.span.file == unit.path else f"{reason} ({fn.name})"
    changed = True
    while changed:  # through the callees, by name
        changed = False
        for name, callees in calls.items():
            if name in why:
                continue
            for c in sorted(callees):
                if c in why and c != name:
                    why[name] = why[c]
                    changed = True
                    break
    program = _program_reason(unit)
    out: dict[str, str] = {}
    for k in unit.kernels:
        if program:
            out[k.name] = program
        elif k.name in why:
            out[k.name] = why[k.name]
    return out


def _program_reason(unit: TranslationUnit) -> str:
    """A reason that keeps every kernel of the program serial, or ''."""
    for g in unit.globals:
        # A namespace-scope pointer to the dynamic shared buffer is set once, to the launching
        # thread's buffer (emu/rewrite.py, _extern_shared).
        if g.space == "shared" and g.is_extern:
            return f"extern __shared__ '{g.name}' at namespace scope"
    return ""


def parallel_kernels(unit: TranslationUnit) -> frozenset[str]:
    """Kernels (by name) whose blocks may run on several OS threads."""
    serial = serial_kernels(unit)
    return frozenset(k.name for k in unit.kernels
                     if k.body is not None and k.name not in serial)
