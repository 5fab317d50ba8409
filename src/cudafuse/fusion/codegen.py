"""Emitting a fused kernel: value-at-element functions, views, the kernel, the host edits.

For a group with last kernel K and producers P1..Pm (launch order), cudafuse emits, before
the host function:

    T  <g>_<P>_<buf>_at(long long i, <group params>)   P's body, evaluated at element i:
                                                      coordinates from i, no guard, and the
                                                      store of <buf> turned into `return`
    struct <g>_<P>_<buf>_view { <group params>; T operator[](long long i) const; }
    __global__ void <g>(<group params>)                 K's body, verbatim, in a scope where
                                                      each intermediate pointer is a view

A consumer's `tmp[index]` then calls the producer at exactly the element the original read,
whatever the index expression, macro or border handling: border semantics are preserved by
construction, for chains of any depth (a producer's own reads of an intermediate go through
a view too). An intermediate still needed outside the group is stored by the thread that owns
its element, right before K's own store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudafuse.codegen.splice import Rewriter
from cudafuse.fusion.escape import overload_text, subscript_only
from cudafuse.fusion.exprprint import Unprintable, to_c
from cudafuse.fusion.hostview import LaunchSite, buffer_key, value_key
from cudafuse.fusion.view import KernelView
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Param, TranslationUnit
from cudafuse.ir.source import SourceFile, Span


class CodegenError(ValueError):
    """The group cannot be emitted; the message says why (it is reported, not raised)."""


@dataclass
class GroupParam:
    key: str
    type: str
    host_arg: n.Expr
    kname: str = ""  # its name inside the fused kernel


@dataclass
class FusedGroup:
    name: str
    launches: list[LaunchSite]  # launch order; the last is K
    stored: set[str]  # intermediate buffer keys that must still be written to memory


def param_key(p: Param, arg: n.Expr) -> str | None:
    if p.is_pointer:
        k = buffer_key(arg)
        return None if k is None else f"buf:{k}"
    return f"val:{value_key(arg, p.type)}"


_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"', re.S)


def pick_prefix(source: SourceFile) -> str:
    """A prefix for generated names that no identifier of the file's code starts with
    (comments and strings do not count)."""
    text = _COMMENT.sub(" ", source.data.decode("utf-8", "replace"))
    for i in range(100):
        prefix = "cf" if i == 0 else f"cf{i}"
        if not re.search(rf"\b{prefix}_", text):
            return prefix
    raise CodegenError("cannot find a free prefix for generated names")


def expr_text(unit: TranslationUnit, e: n.Expr, parent: n.Node | None = None) -> str:
    """The original text of `e` when its span is its own, else the expression printed back.

    Inside a macro expansion libclang gives every node the invocation's span: a node whose
    span is empty, or as wide as its parent's, did not come from text of its own."""
    own = e.span.file == unit.path and e.span.end > e.span.start
    if own and parent is not None:
        own = not (e.span.start <= parent.span.start and e.span.end >= parent.span.end)
    if own:
        return unit.text(e.span)
    try:
        return to_c(e)
    except Unprintable as exc:
        raise CodegenError(f"cannot re-emit an expression at line {e.span.line}: {exc}") \
            from None


def _nonconst(t: str) -> str:
    return re.sub(r"^\s*const\s+", "", t)


class GroupEmitter:
    def __init__(self, unit: TranslationUnit, views: dict[str, KernelView], group: FusedGroup,
                 prefix: str, emitted_overloads: set[tuple[str, frozenset[int]]] | None = None):
        self.unit, self.views, self.group, self.prefix = unit, views, group, prefix
        self.emitted_overloads = emitted_overloads if emitted_overloads is not None else set()
        self.sink = group.launches[-1]
        # buffer key -> (producer launch, its output parameter)
        self.produced: dict[str, tuple[LaunchSite, Param]] = {}
        for site in group.launches[:-1]:
            view = views[site.kernel.name]
            for p, arg in site.bindings:
                if p.name in view.stores:
                    key = param_key(p, arg)
                    if key is None:
                        raise CodegenError(f"'{site.kernel.name}' stores through an argument "
                                           "that is not a plain buffer variable")
                    self.produced[key] = (site, p)
        self.params = self._group_params()

    # ---- parameters ------------------------------------------------------------------

    def _is_view(self, site: LaunchSite, p: Param, key: str | None) -> bool:
        """A pointer parameter served by a view: it names a buffer produced in the group,
        and `site` is not that buffer's producer."""
        return key in self.produced and self.produced[key][0] is not site

    def _group_params(self) -> list[GroupParam]:
        out: dict[str, GroupParam] = {}
        order = [self.sink] + self.group.launches[:-1]
        for site in order:
            own_outputs = {p.name for p in site.kernel.params
                           if p.name in self.views[site.kernel.name].stores}
            for p, arg in site.bindings:
                key = param_key(p, arg)
                if key is None:
                    raise CodegenError(f"argument '{expr_text(self.unit, arg)}' of "
                                       f"'{site.kernel.name}' is not a plain buffer variable")
                if self._is_view(site, p, key):
                    continue
                if site is not self.sink and p.name in own_outputs and \
                        key not in self.group.stored:
                    continue
                if key in out:
                    if p.is_pointer and "const" not in p.type.split("*")[0]:
                        out[key].type = p.type
                    continue
                out[key] = GroupParam(key, p.type, arg)
        for key in sorted(self.group.stored):
            if key not in out:
                site, p = self.produced[key]
                out[key] = GroupParam(key, _nonconst(p.type), site.arg_for(p.name))
        params = list(out.values())
        sink_names = {param_key(p, a): p.name for p, a in self.sink.bindings}
        view_names = {p.name for p, a in self.sink.bindings
                      if self._is_view(self.sink, p, param_key(p, a))}
        for j, gp in enumerate(params):
            name = sink_names.get(gp.key)
            gp.kname = name if name and name not in view_names else f"{self.prefix}_p{j}"
        return params

    def _decls(self, names: list[str]) -> str:
        return ", ".join(_declare(gp.type, nm) for gp, nm in zip(self.params, names, strict=True))

    def _cf_names(self) -> list[str]:
        return [f"{self.prefix}_p{j}" for j in range(len(self.params))]

    # ---- producers ---------------------------------------------------------------------

    def at_name(self, key: str) -> str:
        site, p = self.produced[key]
        return f"{self.group.name}_{site.index}_{site.kernel.name}_{p.name}"

    def _aliases(self, site: LaunchSite) -> str:
        """Declarations of the producer's parameters from the group parameters."""
        view = self.views[site.kernel.name]
        index = {gp.key: j for j, gp in enumerate(self.params)}
        cf = self._cf_names()
        lines = []
        for p, arg in site.bindings:
            key = param_key(p, arg)
            if p.name in view.stores:
                continue
            if self._is_view(site, p, key):
                lines.append(f"  const {self.at_name(key)}_view {p.name}{{{', '.join(cf)}}};")
            else:
                lines.append(f"  [[maybe_unused]] {_declare(p.type, p.name)} = {cf[index[key]]};")
        return "\n".join(lines)

    def _coords(self, view: KernelView) -> str:
        i = f"{self.prefix}_i"
        c = view.coords
        # Arithmetic in the coordinates' own type: a 64-bit division is far slower on a GPU,
        # and an element index that fits the kernel's own index type fits it here too.
        if len(c) == 1:
            return f"{c[0].var_type} {c[0].name} = ({_nonconst(c[0].var_type)})({i});"
        if len(c) == 2 and view.stride is not None:
            s = expr_text(self.unit, view.stride)
            t0, t1 = _nonconst(c[0].var_type), _nonconst(c[1].var_type)
            return (f"{c[0].var_type} {c[0].name} = ({t0})(({t0}){i} % ({s})); "
                    f"{c[1].var_type} {c[1].name} = ({t1})(({t1}){i} / ({s}));")
        raise CodegenError(f"'{view.fn.name}' has no element layout cudafuse can invert")

    def at_function(self, key: str) -> str:
        site, out = self.produced[key]
        fn = site.kernel
        view = self.views[fn.name]
        assert fn.body is not None and view.guard is not None
        body = _Slice(self.unit.source, fn.body.span)
        for k, stmt in enumerate(view.coord_stmts):
            body.replace(stmt.span, self._coords(view) if k == 0 else "")
        if view.guard_kind == "return":
            body.replace(view.guard.span, "")
        else:
            then = view.guard.then
            body.replace_range(view.guard.span.start, then.span.start, "")
        for name, store in view.stores.items():
            text = f"return {self.prefix}_round({expr_text(self.unit, store.value)})" \
                if name == out.name else "(void)0"
            body.replace(store.stmt.span, text)
        elem = _nonconst(out.pointee) or "float"
        header = (f"__device__ __forceinline__ {elem} {self.at_name(key)}_at("
                  f"long long {self.prefix}_i, {self._decls(self._cf_names())})")
        view_struct = self._view_struct(key, elem)
        return (f"{header} {{\n{self._aliases(site)}\n  {body.text()}\n}}\n{view_struct}")

    def _view_struct(self, key: str, elem: str) -> str:
        members = "\n".join(f"  {_declare(gp.type, f'm{j}')};" for j, gp in
                            enumerate(self.params))
        args = ", ".join(f"m{j}" for j in range(len(self.params)))
        name = self.at_name(key)
        return (f"struct {name}_view {{\n{members}\n"
                f"  __device__ __forceinline__ {elem} operator[](long long i) const "
                f"{{ return {name}_at(i, {args}); }}\n}};\n")

    # ---- the fused kernel ----------------------------------------------------------------

    def kernel(self) -> str:
        k = self.sink.kernel
        view = self.views[k.name]
        assert k.body is not None
        knames = [gp.kname for gp in self.params]
        views: list[tuple[str, str]] = []  # (local name, buffer key); one per parameter
        for p, arg in self.sink.bindings:
            key = param_key(p, arg)
            if self._is_view(self.sink, p, key):
                views.append((p.name, key))
        for key in sorted(self.produced):
            if key in self.group.stored and all(k != key for _, k in views):
                views.append((f"{self.prefix}_v{len(views)}", key))
        view_local = {}
        for local, key in views:
            view_local.setdefault(key, local)
        locals_ = [f"  const {self.at_name(key)}_view {local}{{{', '.join(knames)}}};"
                   for local, key in views]
        body = _Slice(self.unit.source, k.body.span)
        if self.group.stored:
            if not view.stores:
                raise CodegenError(f"'{k.name}' has no store at its own element before which "
                                   "the group's intermediates could be stored")
            first = min(view.stores.values(), key=lambda s: s.stmt.span.start)
            kname_of = {gp.key: gp.kname for gp in self.params}
            idx = expr_text(self.unit, first.index, first.stmt.expr.lhs)
            stores = "".join(f"{kname_of[key]}[{idx}] = {view_local[key]}[{idx}]; "
                             for key in sorted(self.group.stored))
            body.insert(first.stmt.span.start, stores)
        bounds = f"__launch_bounds__({k.launch_bounds}) " if k.launch_bounds else ""
        names = ", ".join(s.kernel.name for s in self.group.launches)
        return (f"// cudafuse: {names} fused into one kernel (see cudafuse fuse --explain)\n"
                f"__global__ void {bounds}{self.group.name}({self._decls(knames)}) {{\n"
                + "\n".join(locals_) + f"\n  {body.text()}\n}}\n")

    def overloads(self) -> list[str]:
        """Template overloads of helpers that receive a view (see fusion.escape)."""
        wanted: dict[str, set[int]] = {}
        for site in self.group.launches:
            for p, arg in site.bindings:
                if self._is_view(site, p, param_key(p, arg)):
                    needed, why = subscript_only(self.unit, site.kernel, p.name)
                    if why:
                        raise CodegenError(why)
                    for callee, pos in needed:
                        wanted.setdefault(callee, set()).add(pos)
        out = []
        for callee, positions in sorted(wanted.items()):
            key = (callee, frozenset(positions))
            helper = self.unit.function(callee)
            if key in self.emitted_overloads or helper is None:
                continue
            self.emitted_overloads.add(key)
            out.append(overload_text(self.unit, helper, positions, self.prefix))
        return out

    def emit(self) -> str:
        parts = self.overloads() + [self.at_function(key) for key in
                 sorted(self.produced, key=lambda k: self.produced[k][0].index)]
        return "\n".join(parts + [self.kernel()])

    def host_edits(self, rw: Rewriter) -> None:
        launch = self.sink.launch
        src = self.unit.source
        rw.replace(launch.callee_span, self.group.name, "fused launch")
        args = ", ".join(expr_text(self.unit, gp.host_arg) for gp in self.params)
        close = _find_args(src, launch.config_span.end, launch.span.end)
        rw.replace_range(close[0], close[1], f"({args})", "fused launch arguments")
        for site in self.group.launches[:-1]:
            rw.replace(site.stmt.span,
                       f"/* cudafuse: {site.kernel.name} fused into {self.group.name} */",
                       f"launch of {site.kernel.name} fused")


def prologue(prefix: str) -> str:
    """Definitions every fused file needs once, before the first fused kernel."""
    return f"""// cudafuse: a producer's result is rounded to its type when the original stored it;
// the empty asm keeps nvcc from contracting it into a consumer's multiply-add (which would
// change the last bit of the result), at no cost in instructions.
template <class T> __device__ __forceinline__ T {prefix}_round(T v) {{ return v; }}
__device__ __forceinline__ float {prefix}_round(float v) {{
#ifdef __CUDA_ARCH__
  asm volatile("" : "+f"(v));
#endif
  return v;
}}
__device__ __forceinline__ double {prefix}_round(double v) {{
#ifdef __CUDA_ARCH__
  asm volatile("" : "+d"(v));
#endif
  return v;
}}
"""


def _find_args(src: SourceFile, start: int, end: int) -> tuple[int, int]:
    """The byte range of the launch's parenthesised argument list."""
    open_ = src.data.find(b"(", start, end)
    if open_ < 0 or src.data[end - 1:end] != b")":
        raise CodegenError("cannot find the launch's argument list")
    return open_, end


def _declare(type_: str, name: str) -> str:
    """`float *__restrict name`, `int name`: a declaration from clang's type spelling."""
    if "(*)" in type_ or "[" in type_:
        raise CodegenError(f"cannot declare a parameter of type '{type_}'")
    return f"{type_} {name}" if not type_.endswith("*") else f"{type_}{name}"


class _Slice:
    """Edits confined to one span of the source; text() returns the edited span."""

    def __init__(self, source: SourceFile, span: Span):
        self.span = span
        self.rw = Rewriter(SourceFile(source.path, source.data[span.start:span.end]))

    def replace(self, span: Span, text: str) -> None:
        self.replace_range(span.start, span.end, text)

    def replace_range(self, start: int, end: int, text: str) -> None:
        if not (self.span.start <= start <= end <= self.span.end):
            raise CodegenError("an edit falls outside the kernel body (a macro?)")
        self.rw.replace_range(start - self.span.start, end - self.span.start, text)

    def insert(self, offset: int, text: str) -> None:
        self.replace_range(offset, offset, text)

    def text(self) -> str:
        return self.rw.apply().decode("utf-8")


