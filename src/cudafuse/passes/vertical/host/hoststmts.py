"""Which host statements between two launches a launch sequence may continue across.

Fusing a group moves every launch of it to the position of its last launch: the fused launch
replaces the last one, the others disappear, and the statements between them stay where they
are. So a statement S between launches L1 and L2 of a group now runs *before* L1's work, and
L1's configuration and arguments are evaluated after S. That is harmless when S

* neither reads nor writes memory a launch may use (device buffers, managed memory), and
* assigns no variable that a launch before it in the sequence reads (its arguments would
  then see the new value); variables only later launches read keep their order (each such
  launch is in turn "before" the statements after it, up to the group's last launch).

What S observes changes only in ways that do not touch the outputs: error checks after a
removed launch check nothing (the fused launch's errors are reported by the checks after
it), synchronisation waits for less, host timers time a different split of the same work.

The rules, per kind of statement (`statement_break` returns why S splits, or None):

* Calls. A call is harmless when its callee is
  - a CUDA runtime call that only synchronises or reports errors (`cudaDeviceSynchronize`,
    its deprecated alias `cudaThreadSynchronize`, `cudaStreamSynchronize`,
    `cudaEventSynchronize`, `cudaGetLastError`, `cudaPeekAtLastError`,
    `cudaGetErrorString/Name`, `cudaEventElapsedTime`),
  - a C/C++ math function (`sqrtf`, `std::sqrt`, `fminf`, `expf`, ...), printing (`printf`,
    `fprintf`, `puts`, `std::cout << ...`), `exit`/`abort`/`assert`,
  - a host timer (`sdkStartTimer`/`sdkStopTimer`/... of the cuda-samples' helper_timer.h,
    `clock`, `gettimeofday`, `std::chrono::...::now`),
  - or a host function whose definition cudafuse sees (in the file, or in a user header:
    frontend/header_callees.py) and whose body only makes harmless calls, writes only its
    own locals and by-value parameters, dereferences no pointer and launches no kernel: an
    error-check wrapper such as cuda-samples' `check()` behind `checkCudaErrors(...)`,
    `__getLastCudaError` behind `getLastCudaError(msg)`, a `gpuAssert`, a `cudaCheck`.
  The call's arguments are part of the statement, so `checkCudaErrors(cudaMemcpy(...))`
  still splits (cudaMemcpy is not harmless), as does any call given a pointer a launch of
  the function uses.
  `cudaEventRecord` (inline, or in a timer's method such as Udacity's `GpuTimer::Start`) is
  a time stamp: fusion moves the point it marks, as it does a host timer's, unless the file
  may order work or memory by an event (another stream waiting on it, polling, managed or
  mapped memory, streams of its own: timers.py); then it splits.
* Memory through a pointer (`p[i]`, `*p`, `p->f`, read or written): only through a local
  array, or a pointer no launch of the host function is given that is a parameter or a
  local set once, from an allocation (host memory no kernel of the function can touch).
  Reading a device or managed buffer between the launches is a real dependence.
* Assignments (`x = ...`, `x += ...`, `++x`, `&x` passed to a harmless call): to a local,
  a parameter (a reference parameter included: the caller's variable, assumed to alias no
  buffer, as distinct pointer parameters are) or a host global, never through a local
  reference, and only when no launch earlier in the sequence reads the variable.
* Declarations: as their initialisers (a new variable changes no earlier value).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Iterable

from cudafuse.analysis.kernel_facts import KernelFacts, analyze_kernel
from cudafuse.analysis.mathfuncs import MATH
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.passes.vertical.host.effects import (
    EffectReader,
    Effects,
    by_value_object,
    library_call,
    own_library_object,
    plain_argument,
)
from cudafuse.passes.vertical.host.exceptions import (
    inherits_standard_constructor,
    thrown_constructor_body,
    unseen_initialisers,
)
from cudafuse.passes.vertical.host.hostexprs import (
    is_assign_operator,
    launched_kernel,
    part_root,
)
from cudafuse.passes.vertical.host.lambdas import called_lambda, declared_inside, lambda_body
from cudafuse.passes.vertical.host.members import this_member
from cudafuse.passes.vertical.host.pointsto import ALLOCATORS, PointsTo, Roots
from cudafuse.passes.vertical.host.process_end import releases_before_exit
from cudafuse.passes.vertical.host.stmtnodes import (
    _assigned,
    _deref_base,
    _nodes,
    _quiet,
    _root,
    _strip,
)
from cudafuse.passes.vertical.host.timers import event_record_reason, own_event

# CUDA runtime calls that only synchronise with the device, report errors or query it, or
# create and destroy streams and events (touching no memory: what they write through `&s`
# is an assignment of s, judged as one; a group's launches share one stream, so destroying
# another in between changes none of them).
CUDA_HARMLESS = frozenset({
    "cudaGetLastError", "cudaPeekAtLastError", "cudaDeviceSynchronize",
    "cudaThreadSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cudaGetErrorString", "cudaGetErrorName", "cudaEventElapsedTime",
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
    "cudaStreamDestroy", "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy",
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties",
    "cudaDeviceGetAttribute", "cudaMemGetInfo", "cudaRuntimeGetVersion",
    "cudaDriverGetVersion",
})

# Printing, and ending the process (std::exit and std::abort are spelled exit and abort).
IO = frozenset({"printf", "fprintf", "puts", "putchar", "fputs", "fflush", "perror",
                "exit", "abort", "_Exit", "_exit", "quick_exit", "terminate",
                "__assert_fail", "__assert_rtn", "_assert"})

TIMERS = frozenset({
    "sdkCreateTimer", "sdkStartTimer", "sdkStopTimer", "sdkResetTimer", "sdkGetTimerValue",
    "sdkGetAverageTimerValue", "sdkDeleteTimer", "clock", "time", "gettimeofday", "clock_gettime",
})

KNOWN = CUDA_HARMLESS | MATH | IO | TIMERS | {"dim3"}

# CUDA runtime calls that touch memory only through their arguments: the argument positions
# they write and read. An allocation writes only the pointer whose address it is given (an
# assignment of that variable, judged as such); a transfer, a memset or a free touches the
# buffers its pointer arguments may name (pointsto.py), or a symbol's global.
MEMORY_CALLS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    **{name: ((), ()) for name in ALLOCATORS},
    **{name: ((0,), (1,)) for name in (
        "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync",
        "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync")},
    **{name: ((0,), (2,)) for name in ("cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyPeer",
                                      "cudaMemcpyPeerAsync")},
    **{name: ((0,), ()) for name in ("cudaMemset", "cudaMemsetAsync", "cudaMemset2D",
                                    "cudaMemset2DAsync", "cudaFree", "cudaFreeAsync",
                                    "cudaFreeHost")},
}
STREAMS = frozenset({"cout", "cerr", "clog"})
MAX_DEPTH = 6


def _file(decl: str) -> str:
    return decl.partition("@")[2].rpartition(":")[0]


def _default_construction(call: n.Call) -> bool:
    """`struct timeval tv;`: the implicit default constructor of a system header's type."""
    f = _file(call.callee_decl)
    return not call.args and call.type.split()[-1:] == [call.callee] and (
        f.startswith("/usr/") or "/include/c++/" in f)


def _known(call: n.Call) -> bool:
    return call.callee in KNOWN or _default_construction(call) or _copy_assignment(call)


def _copy_assignment(call: n.Call) -> bool:
    """`grid = dim3(...)`: the assignment operator of a CUDA or system type (the shim's
    dim3, a std:: type), which writes only its first argument (judged as an assignment)."""
    f = _file(call.callee_decl)
    return is_assign_operator(call) and (
        f.endswith("cudafuse_cuda_shim.h") or f.startswith("/usr/") or "/include/c++/" in f)


class HostStatements:
    """Judges the statements of one host function (see the module docstring)."""

    def __init__(self, unit: TranslationUnit, host: Function, memory_calls: bool = True):
        """`memory_calls`: whether runtime calls that touch memory (MEMORY_CALLS) may be
        harmless, by the buffers they touch; not in a wrapper's body, which goes away
        with an earlier member's call."""
        assert host.body is not None
        self.unit, self.host = unit, host
        self.memory_calls = memory_calls
        self.globals = {g.decl: g for g in unit.globals}
        self.effects = EffectReader(
            unit, MEMORY_CALLS, self._definition, self._named,
            lambda call, thrown: _known(call) or self._stream_print(call) or
            (thrown and self._thrown(call)), self._globals_of, self.event_reason)
        self._kernel_globals: dict[str, Roots] = {}
        self._kernel_facts: dict[str, KernelFacts] = {}
        self.points = PointsTo(host, self.allocates,
                               lambda call: self._definition(call.callee_decl))
        self.launches = [x for x in host.body.walk() if isinstance(x, n.KernelLaunch)]
        # (`&t[k]` is part of t; `bufs[0]` of a table set once is the variable it holds)
        self.buffers = {r.decl for la in self.launches for a in la.args
                        if (r := _root(a) or part_root(a) or self.points.element(a))
                        is not None and _is_pointer(r)}
        self.decls = {d.decl: d for d in host.body.walk() if isinstance(d, n.VarDecl)}
        self.assigned = {r.decl for node in host.body.walk() for r in _assigned(node)}
        self.globals = {g.decl: g for g in unit.globals}
        self._functions: dict[str, str | None] = {}
        self._event_why: list[str | None] = []
        self._aliased: frozenset[str] | None = None
        # `cudaDeviceReset(); exit(1);` of an error check: nothing runs after the release
        self.ending = releases_before_exit(host.body)

    def event_reason(self) -> str | None:
        """Why a `cudaEventRecord` between launches may order work (timers.py), or None."""
        if not self._event_why:
            self._event_why.append(event_record_reason(self.unit, self.host))
        return self._event_why[0]

    # ---- calls ----------------------------------------------------------------------------

    def call_reason(self, call: n.Call) -> str | None:
        """Why this call (not its arguments) may matter to the launches around it."""
        name = call.callee or "?"
        if name == "cudaEventRecord":
            why = self.event_reason() or (own_event(self.host, call.args[0]) if call.args
                                          else "it records no event cudafuse can see")
            return None if why is None else (
                "its call to 'cudaEventRecord' marks a point that other work or the host may "
                f"wait for ({why}), which fusion would move")
        lam = called_lambda(self.host, call)
        if lam is not None:  # a checker lambda, or a std::function holding one
            why = self.lambda_reason(lam, 0, ())
            return None if why is None else \
                f"its call to '{name}' may touch device memory or variables ({why})"
        fn = self._definition(call.callee_decl)
        in_file = fn is not None and _file(call.callee_decl) == self.unit.path
        if not in_file and (_known(call) or self._stream_print(call)):
            return None
        if fn is not None:
            why = self.function_reason(fn, 0, ())
            if why is None:
                return None
            return f"its call to '{name}' may touch device memory or variables ({why})"
        return f"its call to '{name}' may touch device memory or variables"

    def _stream_print(self, call: n.Call) -> bool:
        """`std::cout << ...` (any chain of << on cout/cerr/clog), or a manipulator."""
        if call.callee != "operator<<" or not call.args:
            return False
        first = _strip(call.args[0])
        while isinstance(first, n.Call) and first.callee == "operator<<" and first.args:
            first = _strip(first.args[0])
        return isinstance(first, n.Ref) and first.name in STREAMS

    def _thrown(self, call: n.Call) -> bool:
        """A call building a thrown exception that touches only its arguments (judged on
        their own): the C++ library's, or an inherited standard exception constructor."""
        return _system(call) or inherits_standard_constructor(self.unit, call) or \
            self._thrown_constructor(call, 0, ())

    def _thrown_constructor(self, call: n.Call, depth: int, stack: tuple[str, ...]) -> bool:
        """A constructor of the program's exception class, judged by what its initialisers
        and body evaluate (exceptions.thrown_constructor_body), harmless."""
        return self._constructor_reason(call, depth, stack) is None

    def _constructor_reason(self, call: n.Call, depth: int, stack: tuple[str, ...]) -> str | None:
        """Why building a thrown object of the program's class through `call` may matter
        ("" when the call is no constructor of the program's), or None."""
        fn = self._definition(call.callee_decl)
        if fn is None or not fn.parent or fn.body is None or \
                fn.name != fn.parent.rpartition("::")[2].partition("<")[0]:
            return ""
        body = thrown_constructor_body(fn)
        if body is None:
            return (f"'{fn.name}' also runs a constructor of the program's that no "
                    "initialiser names, or a member's default initialiser")
        if fn.decl in stack or depth > MAX_DEPTH:
            return f"'{fn.name}' calls itself or nests too deeply"
        own = {p.decl for p in fn.params if not p.is_reference} | {
            d.decl for d in body.walk() if isinstance(d, n.VarDecl)}
        return self._body_reason(fn, body, own.__contains__, depth + 1, (*stack, fn.decl))

    def _definition(self, decl: str) -> Function | None:
        if not decl:
            return None
        return self.unit.callee(decl) or next(
            (f for f in self.unit.header_functions if f.decl == decl), None)

    def function_reason(self, fn: Function, depth: int, stack: tuple[str, ...]
                        ) -> str | None:
        """Why a called host function is not harmless, or None."""
        if fn.decl in self._functions and depth == 0:
            return self._functions[fn.decl]
        why = self._function_reason(fn, depth, stack)
        if depth == 0:
            self._functions[fn.decl] = why
        return why

    def _function_reason(self, fn: Function, depth: int, stack: tuple[str, ...]
                         ) -> str | None:
        if fn.space == "global" or fn.body is None:
            return f"'{fn.name}' is not a host function cudafuse can see"
        if fn.decl in stack or depth > MAX_DEPTH:
            return f"'{fn.name}' calls itself or nests too deeply"
        if unseen_initialisers(self.unit, fn):
            return f"'{fn.name}' has member initialisers cudafuse does not read"
        own = {p.decl for p in fn.params if not p.is_reference} | {
            d.decl for d in fn.body.walk() if isinstance(d, n.VarDecl)}
        return self._body_reason(fn, fn.body, own.__contains__, depth, stack)

    def lambda_reason(self, lam: n.OtherExpr, depth: int, stack: tuple[str, ...]
                      ) -> str | None:
        """Why the body of a lambda the host function calls is not harmless, judged as a
        helper's body is: it may write only its own parameters and locals (a capture by
        reference is the host function's variable), and call only harmless functions."""
        body = lambda_body(lam)
        if body is None:
            return "a lambda whose body cudafuse cannot see"
        me = dataclasses.replace(self.host, name="lambda", decl=f"lambda@{lam.span.file}:"
                                 f"{lam.span.start}", params=(), body=body)
        return self._body_reason(me, body, lambda d: declared_inside(lam, d), depth, stack)

    def _body_reason(self, fn: Function, body: n.Stmt, own: Callable[[str], bool],
                     depth: int, stack: tuple[str, ...]) -> str | None:
        arrays = {d.decl for d in body.walk() if isinstance(d, n.VarDecl) and d.array_dims}
        values = {d.decl for d in body.walk() if isinstance(d, n.VarDecl) and
                  "&" not in d.var_type and "*" not in d.var_type}
        ending = releases_before_exit(body)
        for node, thrown in _nodes(body):
            if isinstance(node, n.KernelLaunch):
                return f"'{fn.name}' launches a kernel"
            if isinstance(node, n.OtherExpr) and not _quiet(node) and \
                    not (thrown and node.kind != "LAMBDA_EXPR"):
                return f"'{fn.name}' contains an expression cudafuse does not model"
            base = _deref_base(node)
            if base is not None and not (isinstance(base, n.Ref) and base.decl in arrays):
                return f"'{fn.name}' reads or writes memory through a pointer"
            for r in _assigned(node):
                if not own(r.decl):
                    return f"'{fn.name}' assigns '{r.name}'"
            if isinstance(node, n.Call) and id(node) not in ending:
                if node.callee == "cudaEventRecord" and (ev := self.event_reason() or (
                        own_event(fn, node.args[0]) if node.args else "no event")):
                    return f"'{fn.name}' records an event: {ev}"
                why = self._inner_call(fn, node, thrown, depth, stack, values)
                if why is not None:
                    return why
        return None

    def _inner_call(self, fn: Function, call: n.Call, thrown: bool, depth: int,
                    stack: tuple[str, ...], values: Collection[str] = ()) -> str | None:
        """Why a call in the body of the called host function `fn` is not harmless
        (`values`: the objects that body declares by value, its own)."""
        if thrown and self._thrown_constructor(call, depth, stack):
            return None
        inner = self._definition(call.callee_decl)
        if inner is not None and _file(call.callee_decl) == self.unit.path or \
                inner is not None and not _known(call):
            return self._function_reason(inner, depth + 1, (*stack, fn.decl))
        if _known(call) or self._stream_print(call) or thrown and self._thrown(call):
            return None
        if library_call(call) and own_library_object(call, values):
            return None  # a string stream it builds a message in (`os << ...`)
        if library_call(call) and not isinstance(call.callee_expr, n.Member) and \
                not call.callee.startswith("operator") and all(
                    isinstance(_strip(a), n.StrLit) or plain_argument(a) and
                    "*" not in a.type and "[" not in a.type for a in call.args):
            return None  # given no pointer, the library reaches no memory of the program
            # (`std::stringstream ss;`: its constructor, of an object of the body's own)
        if not call.callee_decl and call.callee:
            # A call a template left unresolved (its argument's type is a parameter): it
            # will call one of the functions of that name; harmless when all of them are.
            named = self._named(call.callee)
            if named and all(self._function_reason(f, depth + 1, (*stack, fn.decl)) is None
                             for f in named):
                return None
        return f"'{fn.name}' calls '{call.callee or '?'}'"

    def _named(self, name: str) -> list[Function]:
        return [f for f in (*self.unit.functions, *self.unit.header_functions)
                if f.name == name and f.body is not None]

    def _helpers(self, call: n.Call) -> list[Function]:
        """The host functions of the program a call may run (its definition, or every
        function of its name for a call a template left unresolved); [] for a call known by
        name (a runtime call, printing) or one whose body cudafuse cannot see."""
        fn = self._definition(call.callee_decl)
        if fn is not None:
            in_file = _file(call.callee_decl) == self.unit.path
            return [fn] if fn.space != "global" and (in_file or not _known(call)) else []
        if not call.callee_decl and call.callee and not _known(call):
            return self._named(call.callee)
        return []

    def allocates(self, call: n.Call, i: int) -> bool:
        """Whether the call only stores a fresh allocation through its i-th argument (a
        helper such as `alloc(&d_buf, n)` around `cudaMalloc`)."""
        fns = self._helpers(call)
        return bool(fns) and all(isinstance(e := self.effects.effects(fn), Effects) and
                                 i in e.allocates for fn in fns)

    def effects_read(self, stmt: n.Stmt) -> bool:
        """Whether every call of the program's own functions in the statement has effects
        cudafuse can read (so a reason it gives is a real dependence)."""
        return all(isinstance(self.effects.effects(fn), Effects)
                   for node in stmt.walk() if isinstance(node, n.Call)
                   for fn in self._helpers(node))

    def aliased_globals(self) -> frozenset[str]:
        """Host globals whose address the unit may take (byvalue._aliased_globals), and
        the host function's variables whose address it takes (`g_p = &m;`)."""
        if self._aliased is None:
            from cudafuse.passes.vertical.host.byvalue import address_kept_globals, address_leaks

            assert self.host.body is not None
            self._aliased = frozenset(address_kept_globals(self.unit) |
                                      address_leaks(self.host.body))
        return self._aliased

    def writes_global(self, stmt: n.Stmt, decl: str) -> bool:
        """Whether the statement may change host global `decl`: it assigns it, calls a
        program function whose body may (effects.py; unreadable effects count as may), or
        calls a function cudafuse neither sees nor knows by name. Runtime, C library and
        known calls change no global of the program but through an address, which the
        caller rules out (ByValue.escaped)."""
        for node in stmt.walk():
            if any(r.decl == decl for r in _assigned(node)):
                return True
            if isinstance(node, n.OtherExpr) and not _quiet(node):
                return True
            if not isinstance(node, n.Call):
                continue
            fns = self._helpers(node)
            for fn in fns:
                got = self.effects.effects(fn)
                if isinstance(got, str) or decl in got.globals_assigned:
                    return True
            if not fns and self._definition(node.callee_decl) is None and not (
                    _known(node) or node.callee in MEMORY_CALLS or
                    self._stream_print(node) or _system(node) or _runtime(node)):
                return True
        return False

    def helper_reason(self, call: n.Call, fns: list[Function],
                      before: list[n.KernelLaunch], exchanges: bool = False) -> str | None:
        """Why a call of the program's own host functions matters to the launches before it:
        what their bodies touch (effects.py), in the caller's terms, may be a buffer one of
        those launches uses, or a variable one of them reads (not, with `exchanges`, the
        pointer variables it exchanges, which the caller follows by value)."""
        name = call.callee or "?"
        for fn in fns:
            got = self.effects.effects(fn)
            if isinstance(got, str):
                return f"its call to '{name}' may touch device memory or variables ({got})"
            if got.records_member:
                obj = call.callee_expr.base if isinstance(call.callee_expr, n.Member) \
                    else None
                why = "its object is not known" if obj is None else own_event(self.host, obj)
                if why is not None:
                    return (f"its call to '{name}' records an event of its object, which "
                            f"other code may wait for ({why})")
            if got.reads_members and not by_value_object(call, {
                    d for d, v in self.decls.items()
                    if not any(c in re.sub(r"<.*>", "", v.var_type) for c in "&*")}):
                return (f"its call to '{name}' reads data members of an object that is not "
                        "a local variable of its own (it may be memory a launch writes)")
            if exchanges:
                got = dataclasses.replace(got, assigned=frozenset())
            why = self._effects_reason(call, got, before)
            if why is not None:
                return why
        return None

    def _effects_reason(self, call: n.Call, eff: Effects, before: list[n.KernelLaunch]
                        ) -> str | None:
        name = call.callee or "?"
        touched: list[tuple[str, Roots | None]] = []
        for t in sorted(eff.touched):
            kind, _, what = t.partition(":")
            if kind == "global":
                g = self.globals.get(what)
                touched.append((g.name if g is not None else what, frozenset({what})))
            elif int(what) < len(call.args):
                arg = call.args[int(what)]
                touched.append((_text(self.unit, arg), self.points.roots(arg)))
            else:
                touched.append(("a default argument", None))
        for la in before:
            used = self.launch_roots(la)
            for what, roots in touched:
                if roots is None or used is None or roots & used:
                    return (f"its call to '{name}' touches '{what}', which may be a buffer the "
                            f"launch of '{la.kernel}' at line {la.span.line} uses")
        # Memory through a pointer global (`int *p = &h_n;`) may be a host global whose
        # address is taken, which an earlier launch reads by value: the fused launch would
        # read it after the call.
        pointers = [what for what, roots in touched
                    if roots is not None and any(self._pointer_global(g) for g in roots)]
        if pointers and (why := self.aliased_read(before)) is not None:
            return (f"its call to '{name}' reaches memory through '{pointers[0]}', which "
                    f"may be {why}")
        for i in sorted(eff.assigned):
            target = _strip(call.args[i]) if i < len(call.args) else None
            while isinstance(target, n.Member) and not target.arrow:
                target = _strip(target.base)
            if not isinstance(target, n.Ref):
                return f"its call to '{name}' assigns through a reference cudafuse cannot follow"
            why = self.assign_reason(target, before)
            if why is not None:
                return f"its call to '{name}' {why.removeprefix('it ')}"
        for g in sorted(eff.globals_assigned):
            for la in before:
                if any(isinstance(x, n.Ref) and x.decl == g for x in la.walk()):
                    return (f"its call to '{name}' assigns '{self.globals[g].name}', which the "
                            f"launch of '{la.kernel}' at line {la.span.line} reads")
                why = self._kernel_reads_global(g, self.globals[g].name, la)
                if why is not None:
                    return f"its call to '{name}' assigns {why}"
        return None

    # ---- memory and variables ---------------------------------------------------------------

    def deref_reason(self, node: n.Node, before: list[n.KernelLaunch]) -> str | None:
        """Why a memory access through a pointer matters to the launches before it in the
        sequence: the pointer may name a buffer one of them uses (read or written), or
        what it names is not known. Launches after it keep their place after it."""
        base = _deref_base(node)
        if base is None:
            return None
        if isinstance(base, n.Ref) and self._host_memory(base):
            return None
        name = base.name if isinstance(base, n.Ref) else "?"
        if not self.memory_calls:  # (a wrapper's body: see __init__)
            return (f"it reads or writes memory through '{name}', which may be a buffer the "
                    "launches use")
        roots = self.points.roots(base)
        if roots is None and before:
            return f"it reads or writes memory through '{name}', which cudafuse cannot follow"
        for la in before:
            used = self.launch_roots(la)
            if roots is None or used is None or roots & used:
                return (f"it reads or writes memory through '{name}', which may be a buffer "
                        f"the launch of '{la.kernel}' at line {la.span.line} uses")
        if roots is not None and any(self._pointer_global(g) for g in roots):
            why = self.aliased_read(before)
            if why is not None:
                return f"it reads or writes memory through '{name}', which may be {why}"
        return None

    def _pointer_global(self, decl: str) -> bool:
        g = self.globals.get(decl)
        return g is not None and g.space == "host" and "*" in g.type

    def aliased_read(self, before: list[n.KernelLaunch]) -> str | None:
        """`'g' (its address is taken), which the launch of 'k' at line N reads` for the
        first launch before that reads a host global or variable whose address may be taken
        (memory through a pointer global may be that variable), else None."""
        aliased = self.aliased_globals()
        for la in before:
            read = next((x for x in la.walk() if isinstance(x, n.Ref) and
                         x.decl in aliased), None)
            if read is not None:
                return (f"'{read.name}' (its address is taken), which the launch of "
                        f"'{la.kernel}' at line {la.span.line} reads")
        return None

    def _host_memory(self, r: n.Ref) -> bool:
        """Memory no launch of the host function can reach through this variable."""
        d = self.decls.get(r.decl)
        if d is not None and d.array_dims:
            return True
        if r.decl in self.buffers or r.kind not in ("local", "param"):
            return False
        # What it may point to (pointsto.py): distinct pointer parameters do not alias (as
        # for the launches); a local copied from a launch's buffer, or set to something
        # the analysis cannot follow, may be that buffer.
        roots = self.points.sets.get(r.decl)
        return roots is not None and not roots & self.buffer_roots()

    def buffer_roots(self) -> Roots:
        """What the pointers the launches are given may point to (those the analysis
        follows)."""
        out: set[str] = set()
        for d in self.buffers:
            out |= self.points.sets.get(d) or frozenset({d})
        return frozenset(out)

    def passes_buffer(self, call: n.Call) -> str | None:
        for a in call.args:
            a = _strip(a)
            if isinstance(a, n.Unary) and a.op == "&":
                a = _strip(a.operand)
            r = _root(a) if a is not None else None
            if r is not None and (r.decl in self.buffers or
                                  (self.points.sets.get(r.decl) or frozenset()) &
                                  self.buffer_roots()):
                return (f"it passes '{r.name}', a buffer the launches use, to "
                        f"'{call.callee or '?'}'")
        return None

    def memory_reason(self, call: n.Call, before: list[n.KernelLaunch]) -> str | None:
        """Why a runtime call that touches memory matters to the launches of the sequence
        before it, whose work fusion moves past it: it touches a buffer one of them may
        use (a transfer into or out of it, a memset, a free). Launches after it keep their
        place after it."""
        writes, reads = MEMORY_CALLS[call.callee]
        touched: list[tuple[n.Expr, Roots | None, bool]] = [
            (a, self.points.roots(a), i in writes) for i, a in enumerate(call.args)
            if i in writes or i in reads]
        touched.sort(key=lambda t: t[1] is None)  # name a buffer it surely touches first
        for la in before:
            used = self.launch_roots(la)
            for arg, roots, written in touched:
                if roots is not None and used is not None and not roots & used:
                    continue
                # A buffer the call only reads matters to a launch that may write it; two
                # reads of one buffer, in either order, read the same values. (The kernel's
                # facts are asked for only here, where the buffers meet.)
                if not written and roots is not None and \
                        (mine := self.launch_write_roots(la)) is not None and not roots & mine:
                    continue
                what = _text(self.unit, arg)
                return (f"its call to '{call.callee}' touches '{what}', which may be a "
                        f"buffer the launch of '{la.kernel}' at line {la.span.line} uses")
        return self._through_pointer_global(call, [(a, r) for a, r, w in touched if w], before)

    def _through_pointer_global(self, call: n.Call, touched: list[tuple[n.Expr, Roots | None]],
                                before: list[n.KernelLaunch]) -> str | None:
        """A call writing through a pointer global (`int *p = &h_n;`): that memory may be a
        host global an earlier launch reads by value (aliased_read)."""
        for arg, roots in touched:
            if roots is not None and any(self._pointer_global(g) for g in roots) and \
                    (why := self.aliased_read(before)) is not None:
                return (f"its call to '{call.callee or '?'}' writes through "
                        f"'{_text(self.unit, arg)}', which may be {why}")
        return None

    def _library_pointers(self, call: n.Call) -> list[n.Expr] | None:
        """A call of a free function of the C or C++ library (`memset(h, 0, n)`,
        `std::fill(a, a + n, v)`) given only scalars and pointers to scalars, not known by
        name: the pointers through which it may touch memory (it reaches no other); None
        for any other call (a method or operator also reaches its object)."""
        if _known(call) or self._stream_print(call) or not library_call(call) or \
                self._definition(call.callee_decl) is not None or \
                isinstance(call.callee_expr, n.Member) or call.callee.startswith("operator"):
            return None  # (a method also touches its object: `d.reset()` may free a buffer)
        out: list[n.Expr] = []
        for a in call.args:
            base = _strip(a)
            while isinstance(base, n.Binary) and base.op in ("+", "-"):
                base = _strip(base.lhs)  # `h.get() + n`: still its memory
            if self.points.smart_get(base) is not None:
                out.append(a)
            elif isinstance(base, n.StrLit) or isinstance(base, n.OtherExpr) and \
                    _quiet(base):
                continue  # a literal, or a default argument the library's header writes
                # (`std::string("x")`'s allocator): neither names memory of the program
            elif not plain_argument(a):
                return None
            elif ("*" in a.type or "[" in a.type) and not (
                    isinstance(base, n.OtherExpr) and base.kind == "STRING_LITERAL"):
                out.append(a)
        return out

    def library_reason(self, call: n.Call, pointers: list[n.Expr],
                       before: list[n.KernelLaunch]) -> str | None:
        """Why the memory a library call reaches through its pointer arguments matters to
        the launches before it (as for a runtime memory call: memory_reason)."""
        touched = [(a, self.points.roots(a)) for a in pointers]
        touched.sort(key=lambda t: t[1] is None)  # name a known buffer first
        for la in before:
            used = self.launch_roots(la)
            for arg, roots in touched:
                if roots is None or used is None or roots & used:
                    return (f"its call to '{call.callee or '?'}' touches "
                            f"'{_text(self.unit, arg)}', which may be a buffer the launch of "
                            f"'{la.kernel}' at line {la.span.line} uses")
        return self._through_pointer_global(call, touched, before)

    def launch_write_roots(self, la: n.KernelLaunch) -> Roots | None:
        """The buffers a launch may write: as launch_roots, less what its pointer arguments
        name when the kernel only reads through that parameter (its facts, which the
        dependences between launches read too: analysis/dataflow.py)."""
        kernel = launched_kernel(self.unit, la)
        if kernel is None:
            return None
        facts = self._kernel_facts.get(kernel.decl)
        if facts is None:
            facts = self._kernel_facts[kernel.decl] = analyze_kernel(self.unit, kernel)
        out: set[str] = set()
        for j, a in enumerate(la.args):
            if "*" in a.type or "[" in a.type or not a.type:
                p = facts.params[j] if j < len(facts.params) else None
                if p is not None and p.is_pointer and not (p.writes or p.atomic):
                    continue
                roots = self.points.roots(a)
                if roots is None:
                    return None
                out |= roots
        return frozenset(out) | self._globals_of(kernel)

    def launch_roots(self, la: n.KernelLaunch) -> Roots | None:
        """The buffers a launch may use: what its pointer arguments may name, and the
        globals its kernel (or a function it calls) names; None when not known."""
        out: set[str] = set()
        for a in la.args:
            if "*" in a.type or "[" in a.type or not a.type:
                roots = self.points.roots(a)
                if roots is None:
                    return None
                out |= roots
        kernel = launched_kernel(self.unit, la)
        if kernel is None:
            return None
        return frozenset(out) | self._globals_of(kernel)

    def _globals_of(self, kernel: Function) -> Roots:
        """The globals a kernel (or a function it calls) names."""
        if kernel.decl not in self._kernel_globals:
            from cudafuse.analysis.callgraph import CallGraph

            found: set[str] = set()
            for fn in (kernel, *CallGraph(self.unit).transitive(kernel)):
                for node in fn.body.walk() if fn.body is not None else ():
                    if isinstance(node, n.Ref) and node.kind == "global":
                        found.add(node.decl or node.name)
            self._kernel_globals[kernel.decl] = frozenset(found)
        return self._kernel_globals[kernel.decl]

    def assign_reason(self, r: n.Ref, before: Iterable[n.KernelLaunch]) -> str | None:
        d = self.decls.get(r.decl)
        if r.kind == "global":
            g = self.globals.get(r.decl)
            if g is None or g.space != "host":
                return f"it assigns '{r.name}', which is not a host variable"
        elif r.kind not in ("local", "param"):
            return f"it assigns '{r.name}'"
        ref_param = any(p.decl == r.decl and p.is_reference for p in self.host.params)
        if "&" in r.type or (d is not None and "&" in d.var_type) or \
                ref_param and not self.memory_calls:
            return f"it assigns '{r.name}', a reference"
        # A reference parameter (`float &lo`, an output of the function) names the caller's
        # variable: like a pointer parameter's buffer, taken to be no buffer of the
        # launches (distinct parameters do not alias); a launch reading it by value is
        # checked below, as for any variable. A local reference may name anything.
        for la in before:
            if la.stream is not None and any(isinstance(x, n.Ref) and x.decl == r.decl
                                             for x in la.stream.walk()):
                # (`cudaStreamCreate(&s[i])` after launches on `s[0]`: the group's launch,
                # where its last launch stands, would run on the new stream, and the old one
                # may be destroyed by then)
                return (f"it assigns '{r.name}', the stream the launch of '{la.kernel}' at "
                        f"line {la.span.line} runs on (a fused launch would run on the "
                        "stream it names at the group's last launch)")
            if any(isinstance(x, n.Ref) and x.decl == r.decl for x in la.walk()):
                return (f"it assigns '{r.name}', which the launch of '{la.kernel}' at line "
                        f"{la.span.line} reads (a fused launch evaluates its arguments at "
                        "the group's last launch)")
            why = self._kernel_reads_global(r.decl, r.name, la)
            if why is not None:
                return f"it assigns {why}"
        return None

    def _kernel_reads_global(self, decl: str, name: str, la: n.KernelLaunch) -> str | None:
        """`'g', which the kernel of <la> names` when the launch's kernel (or a function it
        calls) names global g: a `__managed__` variable, which the front end lowers like a
        host one, is memory the kernel reads."""
        kernel = launched_kernel(self.unit, la)
        if kernel is not None and decl not in self._globals_of(kernel) and \
                name not in self._globals_of(kernel):
            return None
        return (f"'{name}', which the kernel of the launch of '{la.kernel}' at line "
                f"{la.span.line} may read (managed memory)")

    # ---- statements -----------------------------------------------------------------------

    def statement_reason(self, stmt: n.Stmt, before: Iterable[n.KernelLaunch],
                         swaps: frozenset[str], modelled: Collection[int] = ()
                         ) -> str | None:
        """Why launches before and after this host statement may not be fused across it;
        `before`: the launches of the sequence so far. `modelled`: ids of the nodes whose
        writes of pointer variables the caller follows by value (pointervalues.py: an
        exchange, a copy, a swap helper), which are then no reason (the launches before
        them are named at the fused launch by the variables that then hold their
        buffers); what else such a node does is judged as usual."""
        before = list(before)
        if any(isinstance(x, n.KernelLaunch) for x in stmt.walk()):
            return "it launches a kernel inside control flow"
        fresh = {id(x) for node in stmt.walk() if self.points.owner_init(node)
                 for x in node.walk()}  # a smart pointer's fresh memory (`new T[n]`)
        for node, thrown in _nodes(stmt):
            if self.points.smart_get(node) is not None or id(node) in fresh:
                continue  # the pointer a smart pointer holds, or its fresh memory
            owned = self.points.owned_element(node)
            if owned is not None:  # `h[i]` of a smart pointer's memory
                why = self.library_reason(node, [_strip(node.args[0])], before)  # type: ignore[attr-defined, list-item]
                if why is not None:
                    return why
                continue
            if id(node) in modelled and isinstance(node, n.Call) and \
                    self._definition(node.callee_decl) is None:
                continue  # std::swap, thrust::swap: exchange their arguments, nothing else
            if id(node) in self.ending:
                continue  # a release on a path that ends the process (process_end.py)
            if isinstance(node, n.Call) and node.callee in swaps and len(node.args) == 2 and \
                    id(node) not in modelled:
                names = [(_strip(a).name if isinstance(_strip(a), n.Ref) else "?")  # type: ignore[union-attr]
                         for a in node.args]
                return f"it swaps '{names[0]}' and '{names[1]}'"
            if isinstance(node, n.Call) and self.memory_calls and node.callee in MEMORY_CALLS:
                why = self.memory_reason(node, before)
                if why is not None:
                    return why
            elif isinstance(node, n.Call) and self.memory_calls and not thrown and \
                    (pointers := self._library_pointers(node)) is not None:
                why = self.library_reason(node, pointers, before)
                if why is not None:
                    return why
            elif isinstance(node, n.Call) and thrown and \
                    (built := self._constructor_reason(node, 0, ())) != "":
                # the program's exception class, by what it evaluates (issue 31)
                why = (built and f"its call to '{node.callee}' may touch device memory or "
                       f"variables ({built})") or self.passes_buffer(node)
                if why is not None:
                    return why
            elif isinstance(node, n.Call) and self.memory_calls and \
                    (helpers := self._helpers(node)):
                why = self.helper_reason(node, helpers, before, id(node) in modelled)
                if why is not None:
                    return why
            elif isinstance(node, n.Call):
                why = (None if thrown and self._thrown(node) else self.call_reason(node)) or \
                    self.passes_buffer(node)
                if why is not None:
                    return why
            if isinstance(node, n.OtherExpr) and not _quiet(node) and \
                    not (thrown and node.kind != "LAMBDA_EXPR"):
                return "it contains an expression cudafuse does not model"
            why = self.deref_reason(node, before)
            if why is not None:
                return why
        for node in stmt.walk():
            member = _member_assigned(node)
            if member is not None:  # (a member is shared with every other method's code)
                return f"it assigns 'this->{member}'"
            if id(node) in modelled:
                continue
            for r in _assigned(node):
                why = self.assign_reason(r, before)
                if why is not None:
                    return why
        return None


def _text(unit: TranslationUnit, e: n.Expr) -> str:
    if e.span.file == unit.path and e.span.end > e.span.start:
        return unit.text(e.span)
    return e.name if isinstance(e, n.Ref) else "?"


def _runtime(call: n.Call) -> bool:
    """A function of the CUDA runtime (declared in CUDA's headers or the shim's)."""
    f = _file(call.callee_decl)
    return call.callee.startswith("cuda") and ("cuda" in f or f.endswith("_shim.h"))


def _system(call: n.Call) -> bool:
    """A function of the C or C++ library (constructing a std::string or an exception):
    what it may touch is its arguments, judged on their own."""
    f = _file(call.callee_decl)
    return f.startswith("/usr/") or "/include/c++/" in f


def _is_pointer(r: n.Ref) -> bool:
    return "*" in r.type or "[" in r.type


def _member_assigned(node: n.Node) -> str | None:
    """The data member of `this` the node writes (`b_ = `, `this->w_ += `, `++n_`), if any."""
    target = node.lhs if isinstance(node, n.Binary) and node.is_assignment else \
        node.operand if isinstance(node, n.Unary) and node.op in ("++", "--", "&") else None
    while target is not None:
        field_name = this_member(target)
        if field_name is not None:
            return field_name
        target = target.operand if isinstance(target, n.Cast) else \
            target.base if isinstance(target, (n.Member, n.Index)) else None
    return None


