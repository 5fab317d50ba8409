"""Which kernels the emulator runs with their threads as fibers.

A kernel whose threads wait for each other (a barrier, a warp collective, a cooperative
group's or an arrive-wait barrier's wait) runs each thread as a fiber; the others run their
threads one after another, which is much faster. A kernel is given fibers when it may reach
such a call through the functions it calls, judged by what those functions do, wherever they
are defined: the file's own, the device helpers of the user's headers the front end lowered
(TranslationUnit.header_functions: `static __device__ __forceinline__` helpers, templates,
helpers named through macros), member functions. A callee whose body the front end did not
see (a helper past header_callees' limit, a function of another file or of a header given
with -isystem, a call through a pointer, a functor or a name that depends on a template
parameter and names no function seen) counts as one that waits: fibers are always right,
only slower. The toolkit's functions (cudafuse's own headers) are known by name, and the host
compiler's C and C++ library calls no collective. cudafuse_emu.h stops a run that reaches a
collective in a kernel classified here as barrier-free, so a mistake here is a stop, never a
wrong answer.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from cudafuse import cuda_api
from cudafuse.emu import inline_asm
from cudafuse.frontend.clang_diags import in_bundled_headers
from cudafuse.frontend.parse import include_dir
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

# Calls that make threads of a block wait for each other: a kernel that reaches one of them
# (directly or through device functions) runs its threads as fibers.
SYNC_CALLS = frozenset({
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync",
    "cudafuse_bar_red",  # CUDAFUSE_BAR_RED as the front end sees it (hfuse's definition)
})
BAR_MACRO = "CUDAFUSE_BAR_SYNC"
# Cooperative-groups calls (members and free functions of namespace cooperative_groups) that
# are barriers or warp collectives in the emulator's cooperative_groups.h. They count when the
# callee is declared in a cooperative_groups header, or unresolved (a call on a template
# parameter's group: treated as a collective, to be safe).
CG_SYNC_CALLS = frozenset({
    "sync", "shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "match_any",
    "match_all", "reduce", "inclusive_scan", "exclusive_scan", "coalesced_threads",
    "binary_partition", "labeled_partition", "wait", "wait_prior", "barrier_arrive",
    "barrier_wait",
})

# Waits of libcu++'s barriers and pipelines and of cuda_awbarrier.h (the emulator's
# cudafuse_emu_async.h), and make_pipeline, which synchronises its group: they count when the
# callee is declared in one of those headers (cuda/..., cuda_awbarrier.h, cuda_pipeline.h).
ASYNC_WAIT_CALLS = frozenset({
    "wait", "try_wait", "arrive_and_wait", "wait_parity", "try_wait_parity",
    "producer_acquire", "consumer_wait", "consumer_wait_for", "consumer_wait_until",
    "make_pipeline", "__mbarrier_test_wait",
})
_ASYNC_HEADER = re.compile(r"[/\\]cuda[/\\]|cuda_awbarrier|cuda_pipeline")

_SPELLED_CALLEE = re.compile(r"(\w+)\s*(?:<[^()]*>)?\s*\(")


def _call_name(call: n.Call, unit: TranslationUnit) -> str:
    """The called function's name. A call that depends on a template parameter has none in
    the IR (`tile.shfl_down(v, d)` on a `thread_block_tile<N>`): it is read from the text."""
    if call.callee:
        return call.callee
    if isinstance(call.callee_expr, n.Member) and call.callee_expr.field_name:
        return call.callee_expr.field_name
    if call.span.file != unit.path:
        return ""
    m = _SPELLED_CALLEE.search(unit.source.text(call.span))
    return m.group(1) if m else ""


def _is_cg_collective(call: n.Call, unit: TranslationUnit) -> bool:
    if _call_name(call, unit) not in CG_SYNC_CALLS:
        return False
    decl_file = call.callee_decl.partition("@")[2]
    return not decl_file or "cooperative_groups" in decl_file


def _is_async_wait(call: n.Call, unit: TranslationUnit) -> bool:
    if _call_name(call, unit) not in ASYNC_WAIT_CALLS:
        return False
    decl_file = call.callee_decl.partition("@")[2]
    return not decl_file or _ASYNC_HEADER.search(decl_file) is not None


# The host compiler's C and C++ headers (glibc, libstdc++, libc++, the compiler's own): their
# functions never reach a CUDA collective. A CUDA library installed under /usr/include (a
# distribution's toolkit: cub, thrust, libcu++, cooperative groups) is not one of them.
_HOST_LIBRARY = re.compile(r"^/usr/(?:include|lib/gcc|lib/llvm[^/]*)/|/include/c\+\+/")
_CUDA_LIBRARY = re.compile(r"/(?:cub|thrust|cuda|cooperative_groups|nv)/|cooperative_groups")


def _decl_file(decl: str) -> tuple[str, int]:
    """(file, offset) of a `name@file:offset` declaration id ('', -1 when it has none)."""
    fname, _, offset = decl.partition("@")[2].rpartition(":")
    return fname, int(offset) if offset.isdigit() else -1


def _known_by_name(fname: str, include_root: str) -> bool:
    """Declared by cudafuse's own headers (intrinsics: judged by name) or by the host
    compiler's C/C++ library (no collectives)."""
    if in_bundled_headers(fname, include_root):
        return True
    return bool(_HOST_LIBRARY.search(fname)) and not _CUDA_LIBRARY.search(fname)


# The C standard's <math.h> functions (and their f/l forms), which a template calls with
# operands of its parameter's type (`exp(-x)` for a Dtype x): the host library's or the
# toolkit's, never a collective.
_C_MATH = frozenset(f"{base}{suffix}" for suffix in ("", "f", "l") for base in (
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh",
    "sinh", "tanh", "exp", "exp2", "expm1", "frexp", "ldexp", "log", "log10", "log1p", "log2",
    "logb", "ilogb", "modf", "scalbn", "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt",
    "erf", "erfc", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint", "lrint", "llrint",
    "round", "lround", "llround", "trunc", "fmod", "remainder", "remquo", "copysign", "nan",
    "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma", "abs"))


@functools.lru_cache(maxsize=1)
def _toolkit_names() -> frozenset[str]:
    """Every name cudafuse's own headers (the front end's shim and stand-ins, the API
    declarations) spell as called or declared: a call left unresolved in a template (its
    arguments depend on a parameter) that spells one of them is taken to be the toolkit's
    function, judged by name like the resolved ones."""
    roots = (Path(include_dir()), cuda_api.header_path().parent)
    files = [f for root in roots for f in root.rglob("*") if f.suffix in (".h", ".hpp", ".inc")
             or not f.suffix and f.is_file()]
    text = "\n".join(f.read_text(errors="replace") for f in files if f.is_file())
    names = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))
    # and the functions a declaring macro is given (`CF_PAIR2(__h2div)`)
    for args in re.findall(r"\b[A-Z][A-Z0-9_]+\(([^()]*)\)", text):
        names.update(re.findall(r"[A-Za-z_]\w*", args))
    return frozenset(names) | _C_MATH


def _is_constructor(call: n.Call) -> bool:
    """`float2(...)`, `Vec(a, b)`: a class's constructor (named as its type)."""
    type_name = re.sub(r"<.*", "", call.type.replace("const", "")).strip().rpartition("::")[2]
    return bool(call.callee) and call.callee == type_name


def _bodies(unit: TranslationUnit) -> list[Function]:
    return [f for f in (*unit.functions, *unit.methods, *unit.header_functions)
            if f.body is not None]


def _waits(node: n.Node, unit: TranslationUnit) -> bool:
    if isinstance(node, n.Call):
        return (node.callee in SYNC_CALLS or _is_cg_collective(node, unit)
                or _is_async_wait(node, unit))
    return isinstance(node, n.Asm) and (node.text.lstrip().startswith(BAR_MACRO)
                                        or inline_asm.waits_at_barrier(node.text.lstrip()))


def _inside(fn: Function, call: n.Call) -> bool:
    """A lambda's operator() declared inside fn's own text: its body is part of fn's (a
    functor parameter called in a template is declared inside fn's text too, but is no
    operator())."""
    if call.callee != "operator()":
        return False
    fname, offset = _decl_file(call.callee_decl)
    return fname == fn.span.file and fn.span.start <= offset < fn.span.end


def _callees(fn: Function, call: n.Call, name: str, by_decl: dict[str, list[Function]],
             by_name: dict[str, list[Function]], include_root: str) -> list[Function] | None:
    """The bodies `call` may run (every overload of a name it only spells), or None when
    what it runs cannot be seen."""
    if call.callee_decl:
        if call.callee_decl in by_decl:
            return by_decl[call.callee_decl]
        if _known_by_name(_decl_file(call.callee_decl)[0], include_root) or \
                _inside(fn, call) or _is_constructor(call) or call.callee == "operator=":
            return []  # (an assignment operator with no body is the implicit member copy)
        return by_name.get(call.callee)  # (a specialisation lowered under another id)
    if name in by_name:
        return by_name[name]
    if _is_constructor(call) or name in _toolkit_names():
        return []
    if not name and isinstance(call.callee_expr, n.Call):
        return []  # an operator on operands of template types (`a * b + c`, `p + i`)
    return None


class CalleeBodies:
    """The bodies each call of the unit's functions may run: the function it resolves to,
    every overload of a name it only spells, none for what cudafuse's headers or the host's
    C/C++ library declare; None where what it runs cannot be seen (declared only, through a
    pointer, a callable parameter, a name nothing known spells)."""

    def __init__(self, unit: TranslationUnit) -> None:
        self.unit = unit
        self.include_root = str(include_dir())
        self.bodies = _bodies(unit)
        self.by_decl: dict[str, list[Function]] = {}
        self.by_name: dict[str, list[Function]] = {}
        for f in self.bodies:
            self.by_decl.setdefault(f.decl, []).append(f)
            self.by_name.setdefault(f.name, []).append(f)

    def of(self, fn: Function, call: n.Call, locals_: set[str]) -> list[Function] | None:
        """`locals_`: the names of fn's parameters and variables."""
        name = _call_name(call, self.unit)
        found = _callees(fn, call, name, self.by_decl, self.by_name, self.include_root)
        if found is None and not call.callee_decl and name in locals_:
            found = []  # (a dependent expression spelled by a variable's name)
        return found


def local_names(fn: Function) -> set[str]:
    assert fn.body is not None
    return {p.name for p in fn.params} | {
        x.name for x in fn.body.walk() if isinstance(x, n.VarDecl)}


def fiber_functions(unit: TranslationUnit) -> frozenset[str]:
    """Names of functions that may reach a barrier, a warp collective (cooperative groups'
    too), an arrive-wait barrier's or pipeline's wait, CUDAFUSE_BAR_SYNC, or a callee whose
    body cannot be seen."""
    index = CalleeBodies(unit)
    bodies = index.bodies
    callees: dict[int, list[Function]] = {}
    needs: set[int] = set()
    for fn in bodies:
        assert fn.body is not None
        out = callees.setdefault(id(fn), [])
        locals_ = local_names(fn)
        for node in fn.body.walk():
            if _waits(node, unit):
                needs.add(id(fn))
            elif isinstance(node, n.Call):
                found = index.of(fn, node, locals_)
                if found is None:
                    needs.add(id(fn))
                else:
                    out.extend(found)
    changed = True
    while changed:
        changed = False
        for fn in bodies:
            if id(fn) not in needs and any(id(c) in needs for c in callees[id(fn)]):
                needs.add(id(fn))
                changed = True
    return frozenset(f.name for f in bodies if id(f) in needs)
