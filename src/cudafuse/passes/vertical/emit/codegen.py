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
from collections.abc import Callable
from dataclasses import dataclass, field

from cudafuse.analysis.evaluate import assigned_decls
from cudafuse.analysis.kernel_facts import elem_size
from cudafuse.codegen.exprprint import Unprintable, to_c
from cudafuse.codegen.splice import OverlappingEdits, Rewriter
from cudafuse.ir import nodes as n
from cudafuse.ir.casts import strip_casts as _strip
from cudafuse.ir.program import Function, Param, TranslationUnit
from cudafuse.ir.source import SourceFile, Span
from cudafuse.ir.substitute import replace_nodes
from cudafuse.passes.vertical.emit.rounding import prologue as prologue  # driver imports it here
from cudafuse.passes.vertical.host.api_launches import is_api_launch, status_used
from cudafuse.passes.vertical.host.hostexprs import spells_kernel
from cudafuse.passes.vertical.host.hostview import LaunchSite, param_key
from cudafuse.passes.vertical.kernel.channels import (
    Channels,
    Layout,
    classify,
    frame,
    interleaved_channel,
)
from cudafuse.passes.vertical.kernel.domain import keeps_guard, reads_own_output
from cudafuse.passes.vertical.kernel.escape import overload_text, subscript_only
from cudafuse.passes.vertical.kernel.ownvalue import (
    OwnScope,
    in_loop,
    own_reads,
    own_scope,
    store_anchor,
)
from cudafuse.passes.vertical.kernel.recognise import written_view
from cudafuse.passes.vertical.kernel.tile_stores import TileStore, owner_guard, tile_store
from cudafuse.passes.vertical.kernel.view import KernelView, OwnStore
from cudafuse.passes.vertical.plan.charge import register_limit


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
    tiles: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> halo (rx, ry)
    block: tuple[int, int] | None = None  # K's block shape, needed for tiles
    # Launch the fused kernel with this block (and a grid covering the image) instead of
    # K's launch configuration: FuseOptions.block, for groups that allow it.
    launch_block: tuple[int, int] | None = None
    # Run-time coverage checks of producers (host/runtime_check.py): the fused launch runs
    # when they hold, the original launches otherwise.
    checks: tuple[str, ...] = ()
    # What each check stands for (condition -> meaning, from the module that made it:
    # host/runtime_check.py, kernel/tile_stores.py, kernel/staged_copy.py, legality's row
    # strides), said by --explain and --report.
    meanings: dict[str, str] = field(default_factory=dict)
    # Its members' names as the plan knows them (and keys its register caps by:
    # plan/charge.register_cap), when two instantiations of one template were named apart
    # for code generation (driver._named_apart); () when they are the launches' names.
    planned: tuple[str, ...] = ()


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
    own = unit.owns(e.span) and e.span.end > e.span.start
    if own and parent is not None:
        own = not (e.span.start <= parent.span.start and e.span.end >= parent.span.end)
    if own:
        text = unit.text(e.span)
        if _spells(text, e):
            return text
    try:
        return to_c(e)
    except Unprintable as exc:
        raise CodegenError(f"cannot re-emit an expression at line {e.span.line}: {exc}") \
            from None


_WORD = re.compile(r"[A-Za-z_]\w*")


def _spells(text: str, e: n.Expr) -> bool:
    """Whether `text` can be `e`'s own spelling: inside a macro expansion the span is the
    whole invocation (`IDX(x, y)` for the `w` of `(y) * w + (x)`), which names other
    variables than the expression, or not all of them."""
    words = set(_WORD.findall(text))
    if isinstance(e, n.Ref):  # the name, perhaps qualified (`cfg::W`, `Mode::B`)
        return re.fullmatch(rf"\s*(?:::)?(?:\w+\s*::\s*)*{re.escape(e.name)}\s*", text) \
            is not None
    return all(r.name in words for r in e.walk() if isinstance(r, n.Ref))


def _as_long_long(text: str, ctype: str) -> str:
    """`text` as an initialiser of a long long member: a 64-bit unsigned value (size_t)
    would narrow, which a braced initialiser rejects."""
    if not re.search(r"unsigned long|size_t|uint64|ulong", ctype):
        return text
    return f"(long long){text}" if _one_group(text) else f"(long long)({text})"


def _one_group(text: str) -> bool:
    """Whether `text` is one parenthesised group, `(a + b)` but not `(a) + (b)`."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and k < len(text) - 1:
            return False
    return True


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
        # Producers that keep their guard (see fusion.domain), and those whose function
        # reads their own output from memory (the guard's fallback, a path with no store, a
        # read-modify-write): their output buffer is a parameter of the group.
        self.kept: set[str] = set()
        self.own_memory: set[str] = set()
        for key, (site, p) in self.produced.items():
            view = views[site.kernel.name]
            readers = [views[s.kernel.name] for s in group.launches if s is not site and (
                s is self.sink or any(param_key(q, a) == key for q, a in s.bindings))]
            if keeps_guard(view, readers):
                self.kept.add(key)
            if key in self.kept or reads_own_output(view, p.name):
                self.own_memory.add(key)
        self.params = self._group_params()
        # Filled by kernel(): the tiles staged (key -> halo) and those declined (key -> why).
        self.staged_tiles: dict[str, tuple[int, int]] = {}
        self.declined_tiles: dict[str, str] = {}
        self.tile_bytes = 0

    # ---- parameters ------------------------------------------------------------------

    def _is_view(self, site: LaunchSite, p: Param, key: str | None) -> bool:
        """A pointer parameter served by a view: it names a buffer produced in the group by
        a launch before `site`. A launch before the producer reads the buffer as it was
        before the group (from memory): a read of `s0` by a stencil launched before a later
        kernel updates `s0` in place sees the old values, and serving it with the updater's
        view would also make the two producers' functions call each other."""
        if key not in self.produced:
            return False
        producer = self.produced[key][0]
        return producer is not site and self._position(producer) < self._position(site)

    def _position(self, site: LaunchSite) -> int:
        return next(i for i, s in enumerate(self.group.launches) if s is site)

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
                        key not in self.group.stored and key not in self.own_memory:
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
        return ", ".join(declare_var(gp.type, nm)
                         for gp, nm in zip(self.params, names, strict=True))

    def _cf_names(self) -> list[str]:
        return [f"{self.prefix}_p{j}" for j in range(len(self.params))]

    # ---- producers ---------------------------------------------------------------------

    def at_name(self, key: str) -> str:
        site, p = self.produced[key]
        kernel = re.sub(r"\W+", "_", site.kernel.name).strip("_")  # (`blur<float, 1>`)
        return f"{self.group.name}_{site.index}_{kernel}_{p.name}"

    def _aliases(self, site: LaunchSite) -> str:
        """Declarations of the producer's parameters from the group parameters: values first,
        then views (whose initialisers use the image size, which is among the values)."""
        view = self.views[site.kernel.name]
        index = {gp.key: j for j, gp in enumerate(self.params)}
        cf = self._cf_names()
        values, views = [], []
        for p, arg in site.bindings:
            key = param_key(p, arg)
            if p.name in view.stores and key not in self.own_memory:
                continue
            if not p.name:  # an unnamed parameter: the body cannot use it
                continue
            if self._is_view(site, p, key):
                views.append(f"  [[maybe_unused]] const {self.at_name(key)}_view {p.name}"
                             f"{self._view_init(cf, view, key)};")
            else:
                values.append(f"  [[maybe_unused]] {declare_var(p.type, p.name)} = "
                              f"{cf[index[key]]};")
        return "\n".join(values + views)

    def _coords(self, view: KernelView) -> str:
        """Declarations of the producer's coordinates from the _xy function's parameters."""
        names = (f"{self.prefix}_x", f"{self.prefix}_y")
        return " ".join(f"{c.var_type} {c.name} = ({_nonconst(c.var_type)})({v});"
                        for c, v in zip(view.coords, names, strict=False))

    def _index_to_coords(self, view: KernelView) -> str:
        """Arguments of _xy from a linear element index `cf_i`. Arithmetic in the coordinates'
        own type: a 64-bit division is far slower on a GPU, and an element index that fits
        the kernel's own index type fits it here too."""
        i = f"{self.prefix}_i"
        c = view.coords
        if len(c) == 1:
            return i
        if len(c) == 2 and view.stride is not None:
            s = expr_text(self.unit, view.stride)
            t0, t1 = _nonconst(c[0].var_type), _nonconst(c[1].var_type)
            return f"({t0}){i} % ({s}), ({t1}){i} / ({s})"
        raise CodegenError(f"'{view.fn.name}' has no element layout cudafuse can invert")

    def at_function(self, key: str) -> str:
        site, out = self.produced[key]
        view = self.views[site.kernel.name]
        channels = view.channels.get(out.name)
        if channels is None:
            return self._xy_and_at(key, None) + self._view_struct(
                key, _nonconst(out.pointee) or "float", len(view.coords))
        return "".join(self._xy_and_at(key, c) for c in channels.numbers) + \
            self._channel_view_struct(key)

    def _rounded(self, out: Param, value: str, whole: bool = True) -> str:
        """`value`, stored to `out`'s element by the original, rounded as that store did. A
        class element (`struct px { float r, g, b; }`) is rounded member by member (its
        floating members' paths come from the front end); one whose members cannot all be
        named keeps the template's identity (docs/fp-exactness.md)."""
        r = f"{self.prefix}_round"
        paths = out.pointee_float_paths
        if not whole or not paths or paths == ("",) or \
                re.fullmatch(r"(?:float|double)[1-4]", out.pointee_canonical):
            # (a channel is one member's value; CUDA's vectors have overloads of their own)
            return f"{r}({value})"
        v = f"{self.prefix}_v"
        members = " ".join(f"{v}.{p} = {r}({v}.{p});" for p in paths)
        return (f"[&]() {{ {_nonconst(out.pointee)} {v} = ({value}); {members} "
                f"return {v}; }}()")

    def _xy_and_at(self, key: str, channel: int | None) -> str:
        """The producer's value-at-element functions (`_xy`, `_at`) for output `key`, or for
        one channel of it (suffix `_c<channel>`): the body with that store turned into
        `return` and every other store into nothing."""
        site, out = self.produced[key]
        fn = site.kernel
        view = self.views[fn.name]
        assert fn.body is not None and (view.guard is not None or view.grid_stride)
        if len(view.coords) not in (1, 2):
            raise CodegenError(f"'{fn.name}' is not a 1D or 2D kernel")
        body = _Slice(self.unit.source_of(fn.span.file), fn.body.span)
        data = self.unit.source_of(fn.span.file).data
        acc = self._accumulator_locals(view, fn)
        acc_decls = "".join(f" {t} {local}" + (f" = {self._own_load(view, name)};"
                                                if name in view.loaded else ";")
                            for name, (local, t) in sorted(acc.items()))
        if view.grid_stride:
            self._unloop(view, body, acc_decls)
        self._without_copy(view, body)
        hoisted, hoist_edits = ("", []) if view.grid_stride else self._hoisted_reads(site)
        for k, stmt in enumerate(() if view.grid_stride else view.coord_stmts):
            if k == 0:
                body.replace(stmt.span, self._coords(view) + acc_decls + hoisted)
            else:
                body.replace_range(_line_start(data, stmt.span.start, body.span.start),
                                   _through_line(data, stmt.span.end), "")
        kept = key in self.kept
        load = self._own_load(view, out.name, channel) if kept else ""
        # (a guard testing the block, `i >= n || blockIdx.x == 0`, is printed with the
        # block index of the element: kernel/view._block_condition)
        in_guard = [] if view.guard is None else sorted([
            e for e in self._block_edits(view, []) if view.guard.cond.span.start <= e[0]
            and e[1] <= view.guard.cond.span.end])
        if in_guard and not kept:
            raise CodegenError(f"'{fn.name}''s guard tests its block, but its value "
                               "function has no memory fallback")
        if view.guard is None:
            pass
        elif kept:  # elements outside the guard keep what memory holds
            cond = _render(self.unit, view.guard.cond, in_guard) if in_guard else \
                expr_text(self.unit, view.guard.cond, view.guard)
            if view.guard_kind == "return":
                body.replace_range(_line_start(data, view.guard.span.start, body.span.start),
                                   _through_line(data, view.guard.span.end),
                                   f"  if ({cond}) return {load};\n")
            else:
                body.replace_range(view.guard.span.start, view.guard.then.span.start,
                                   f"if (!({cond})) return {load}; ")
        elif view.guard_kind == "return":
            body.replace_range(_line_start(data, view.guard.span.start, body.span.start),
                               _through_line(data, view.guard.span.end), "")
        else:
            then = view.guard.then
            body.replace_range(view.guard.span.start, then.span.start, "")
        fast = self._fast_reads(site, view.bounds)
        taken = {start for start, _, _ in hoist_edits}
        fast = sorted(hoist_edits + [e for e in fast if e[0] not in taken])
        stores = [st for name in view.stores if name not in view.channels
                  for st in view.all_stores.get(name, (view.stores[name],))]
        targets: set[int] = set()  # the channel's stores (one per branch storing it)
        for name, chans in view.channels.items():
            for cs in chans.stores:
                stores.append(OwnStore(name, cs.stmt, cs.value, cs.index))
                if name == out.name and cs.channel == channel:
                    targets.add(id(cs.stmt))
        acc_edits: list[tuple[int, int, str]] = []
        for name, (local, _) in acc.items():  # every p[own] is the thread's local
            for node in fn.body.walk():
                if isinstance(node, n.Index) and isinstance(b := _strip(node.base), n.Ref) \
                        and b.name == name:
                    if any(s < node.span.end and node.span.start < e for s, e, _ in fast):
                        raise CodegenError(f"'{fn.name}' reads '{name}' inside another "
                                           "intermediate's subscript")
                    if (node.span.start, node.span.end, local) not in acc_edits:
                        # (an operator= call's object is walked twice: callee and argument)
                        acc_edits.append((node.span.start, node.span.end, local))
        fast = sorted(fast + acc_edits + [e for e in self._block_edits(view, fast)
                                          if e not in in_guard])
        stores = [st for st in stores if st.param not in acc]
        if out.name in acc:
            body.insert(fn.body.span.end - 1,
                        f"  return {self._rounded(out, acc[out.name][0])};\n")
        for store in stores:
            sp, vp = store.stmt.span, store.value.span
            if not (sp.start <= vp.start and vp.end <= sp.end and (sp.start, sp.end) !=
                    (vp.start, vp.end)):
                # A store a macro writes (#define SET(d, i, v) d[i] = v): libclang gives the
                # statement and its value the invocation's span, or none, so the value's
                # text cannot be cut out of the statement's.
                raise CodegenError(f"'{fn.name}' stores '{store.param}' through a macro "
                                   f"(line {sp.line}): the stored value's text cannot be "
                                   "separated from the macro invocation's")
            if store.param == out.name and (channel is None or id(store.stmt) in targets):
                value = _render(self.unit, store.value, _copy_reads_in(
                    view, store, fast)) if _inside(
                    store.value.span, fn.body.span) else expr_text(self.unit, store.value)
                if store.op != "=":  # a[i] op= v reads the element: a[i] op (v)
                    lhs = expr_text(self.unit, store.target, store.stmt.expr)
                    value = f"({lhs}) {store.op[:-1]} ({value})"
                text = f"return {self._rounded(out, value, whole=channel is None)}"
            else:
                text = "(void)0"
            body.replace(store.stmt.span, text)
            fast = [e for e in fast if not store.stmt.span.start <= e[0] < store.stmt.span.end]
        for ret in view.early_returns:  # (kernel/view._early_returns; domain keeps them)
            # A thread leaving here stores nothing more: its store on this path, if any,
            # has returned already; otherwise the element keeps what memory holds.
            if not kept or data[ret.span.start:ret.span.end] != b"return":
                # (a macro's return carries the invocation's span: its text is not ours)
                raise CodegenError(f"'{fn.name}' returns early (line {ret.span.line}) "
                                   + ("through a macro" if kept else
                                      "but its value function has no memory fallback"))
            body.replace(ret.span, f"return {load}")
        if kept:  # a path that stores nothing leaves the element as it was
            body.insert(fn.body.span.end - 1, f"  return {load};\n")
        for start, end, text in fast:
            body.replace_range(start, end, text)
        elem = _nonconst(out.pointee) or "float"
        name = self.at_name(key) + ("" if channel is None else f"_c{channel}")
        group = self._decls(self._cf_names())
        cf = ", ".join(self._cf_names())
        xy_params = ", ".join(f"long long {self.prefix}_{d}" for d in "xy"[:len(view.coords)])
        aliases = self._aliases(site)
        return (f"__device__ __forceinline__ {elem} {name}_xy({xy_params}, {group}) {{\n"
                f"{aliases}\n  {body.text()}\n}}\n"
                f"__device__ __forceinline__ {elem} {name}_at(long long {self.prefix}_i, "
                f"{group}) {{\n{aliases}\n"
                f"  return {name}_xy({self._index_to_coords(view)}, {cf});\n}}\n")

    def _without_copy(self, view: KernelView, body: _Slice) -> None:
        """A producer read without its shared copy of a read-only buffer (staged_copy.py):
        the copy, the shared declarations and the barriers go (a value function runs in one
        thread, with no block to wait for), and each read of the copy reads the buffer at the
        same element."""
        copy = view.staged_copy
        if copy is None:
            return
        data = self.unit.source_of(view.fn.span.file).data
        for span in copy.dropped:
            body.replace_range(_line_start(data, span.start, body.span.start),
                               _through_line(data, span.end), "")
        stored = _store_spans(view)
        for span, name in copy.renamed:
            if not any(a <= span.start and span.end <= b for a, b in stored):
                body.replace(span, name)  # (a read in a stored value: _copy_reads_in)

    def _hoisted_reads(self, site: LaunchSite) -> tuple[str, list[tuple[int, int, str]]]:
        """A producer's reads of another producer at its own element, evaluated once at the
        top of its function (`const float cf_o0 = mean[j];`) when it reads it there twice or
        in a loop (an accumulation's loop would otherwise recompute it every iteration).
        Returns the declarations and the edits serving those reads."""
        view = self.views[site.kernel.name]
        body = view.fn.body
        if body is None or not view.coords:
            return "", []
        fr = frame(body, view.coords, view.bounds)
        if fr is None:
            return "", []
        loops = [x for x in body.walk() if isinstance(x, (n.For, n.While))]
        coords = [c.name for c in view.coords]
        decls, edits = [], []
        for p, arg in site.bindings:
            key = param_key(p, arg)
            if not self._is_view(site, p, key) or self._channels(key) is not None:
                continue
            mine = [r for r in view.reads.get(p.name, [])
                    if classify(r.index, fr) == (None, 0) and _own_span(self.unit, r)]
            if len(mine) < 2 and not any(lp.span.start <= r.span.start < lp.span.end
                                         for r in mine for lp in loops):
                continue
            producer = self.views[self.produced[key][0].kernel.name]
            if len(coords) == 2 and any(isinstance(x, n.Ref) and x.kind not in (
                    "param", "global", "function") and x.const_value is None
                    for x in view.bounds[0].walk()):
                continue  # (a local bound is not declared yet where the value goes)
            if len(coords) == 2 and producer.dims == 2:
                width = to_c_or(self.unit, view.bounds[0])
                init = f"{p.name}.at2({coords[0]}, {coords[1]}, {width})"
            elif len(coords) == 1:
                init = f"{p.name}[{coords[0]}]"
            else:
                continue
            name = f"{self.prefix}_o{len(decls)}"
            elem = _nonconst(self.produced[key][1].pointee) or "float"
            decls.append(f" const {elem} {name} = {init};")
            edits += [(r.span.start, r.span.end, name) for r in mine]
        return "".join(decls), edits

    def _accumulator_locals(self, view: KernelView, fn) -> dict[str, tuple[str, str]]:
        """Per accumulated output (accumulate.py): its local's name and type."""
        types = {p.name: _nonconst(p.pointee) or "float" for p in fn.params}
        return {name: (f"{self.prefix}_acc{j}", types[name])
                for j, name in enumerate(sorted(view.accumulators))}

    def _own_load(self, view: KernelView, out: str, channel: int | None = None) -> str:
        """The producer's output at its own element, loaded from memory (in its _xy function,
        whose coordinates are declared from the arguments); for channel c of an output
        stored as channels, that channel of the element (`i * K + c`, `c * plane + i`, the
        plane the guard's bounds: channels.frame)."""
        c = view.coords
        if len(c) == 1:
            own = c[0].name
        elif view.stride is None:
            raise CodegenError(f"'{view.fn.name}' has no row stride to load '{out}' with")
        else:
            own = f"{c[1].name} * ({expr_text(self.unit, view.stride)}) + {c[0].name}"
        chans = view.channels.get(out)
        if channel is None or chans is None:
            return f"{out}[{own}]"
        if chans.layout.kind == "interleaved":
            return f"{out}[({own}) * {chans.layout.factor} + {channel}]"
        plane = " * ".join(f"({expr_text(self.unit, b)})" for b in view.bounds)
        return f"{out}[{channel}LL * {plane} + ({own})]"

    def _unloop(self, view: KernelView, body: _Slice, decls: str = "") -> None:
        """A grid-stride loop's body at one element: the step variables' declarations and the
        loop headers go, the loop variables are declared from the _xy function's parameters
        (and after them `decls`, the accumulators' locals, seen by the return after the
        body)."""
        data = self.unit.source_of(view.fn.span.file).data
        loop = view.loop
        assert loop is not None
        for stmt in view.coord_stmts:  # the stride variable, the while form's loop variable
            body.replace_range(_line_start(data, stmt.span.start, body.span.start),
                               _through_line(data, stmt.span.end), "")
        # (The while form's loop variable was declared before the loop: its declaration is
        # among those removed, and is made here instead.)
        body.replace_range(loop.span.start, loop.body.span.start,
                           self._coords(view) + decls + " ")
        # A 2D loop's inner header goes too (its while form's variable, declared in the
        # outer body, is among coord_stmts), leaving the inner body as a nested block.
        inner = view.inner_loop
        if inner is not None:
            body.replace_range(inner.span.start, inner.body.span.start, "")
        for inc in (view.loop_inc, view.inner_inc):
            if inc is not None:
                body.replace_range(_line_start(data, inc.span.start, body.span.start),
                                   _through_line(data, inc.span.end), "")

    def _view_struct(self, key: str, elem: str, dims: int) -> str:
        """The view: a producer's output as something a consumer can subscript. `at2` is
        the fast path for reads written y * s + x: when s is the image width and x lies in
        the row, the coordinates are (x, y) with no division; a shared-memory tile, when
        present, serves the elements it holds. Anything else goes through the index."""
        p = self.prefix
        args = ", ".join(f"m{j}" for j in range(len(self.params)))
        name = self.at_name(key)
        text = (self._view_head(name, elem, "a shared-memory tile of this producer, or null")
                + f"  __device__ __forceinline__ {elem} operator[](long long i) const "
                f"{{ return {name}_at(i, {args}); }}\n")
        if dims == 2:
            u = "unsigned long long"
            text += (
                f"  __device__ __forceinline__ {elem} at2(long long x, long long y, "
                f"long long s) const {{\n"
                f"    if (s == {p}_s && ({u})x < ({u}){p}_s && ({u})y < ({u}){p}_h) {{\n"
                f"      if ({p}_tile && ({u})(x - {p}_tx0) < ({u}){p}_tw &&\n"
                f"          ({u})(y - {p}_ty0) < ({u}){p}_th)\n"
                f"        return {p}_tile[(y - {p}_ty0) * {p}_tw + (x - {p}_tx0)];\n"
                f"      return {name}_xy(x, y, {args});\n"
                f"    }}\n"
                f"    return {name}_at(y * s + x, {args});\n  }}\n")
        return text + "};\n"

    def _view_head(self, name: str, elem: str, tile: str) -> str:
        """A view's members, as _view_init fills them: the group parameters, the image's
        width and height, and a tile (with what the tile is for this view)."""
        p = self.prefix
        members = "\n".join(f"  {declare_var(gp.type, f'm{j}')};" for j, gp in
                            enumerate(self.params))
        return (f"struct {name}_view {{\n{members}\n"
                f"  long long {p}_s, {p}_h;  // the image's width and height\n"
                f"  const {elem} *{p}_tile;  // {tile}\n"
                f"  long long {p}_tx0, {p}_ty0, {p}_tw, {p}_th;\n")

    def _channel_view_struct(self, key: str) -> str:
        """The view of a buffer holding channels: a subscript decodes the channel from the
        index (legality admits only reads at a channel the producer stores, so the last
        branch is never a guess), and `c<k>_xy(x, y)` gives channel k at an element
        directly: reads at the reader's own element with a constant channel are rewritten to
        it (see _channel_reads), with no division."""
        site, out = self.produced[key]
        chans = self.views[site.kernel.name].channels[out.name]
        elem = _nonconst(out.pointee) or "float"
        p = self.prefix
        args = ", ".join(f"m{j}" for j in range(len(self.params)))
        name = self.at_name(key)
        dims = self.views[site.kernel.name].dims
        xy = ", ".join(f"long long {p}_{d}" for d in "xy"[:dims])
        xy_args = ", ".join(f"{p}_{d}" for d in "xy"[:dims])
        if chans.layout.kind == "planar":
            decode = (f"    const long long {p}_n = {p}_s * ({p}_h > 0 ? {p}_h : 1);\n"
                      f"    const long long {p}_c = i / {p}_n, {p}_e = i - {p}_c * {p}_n;\n")
        else:
            k = chans.layout.factor
            decode = f"    const long long {p}_c = i % {k}, {p}_e = i / {k};\n"
        *first, last = chans.numbers
        cases = "".join(f"    if ({p}_c == {c}) return {name}_c{c}_at({p}_e, {args});\n"
                        for c in first)
        text = (self._view_head(name, elem, "unused: channels are not tiled")
                + f"  __device__ __forceinline__ {elem} operator[](long long i) const {{\n"
                f"{decode}{cases}    return {name}_c{last}_at({p}_e, {args});\n  }}\n")
        for c in chans.numbers:
            text += (f"  __device__ __forceinline__ {elem} c{c}_xy({xy}) const "
                     f"{{ return {name}_c{c}_xy({xy_args}, {args}); }}\n")
            if chans.layout.kind == "interleaved":  # (channel c of element e: _channel_reads)
                text += (f"  __device__ __forceinline__ {elem} e{c}(long long {p}_e) const "
                         f"{{ return {name}_c{c}_at({p}_e, {args}); }}\n")
        return text + "};\n"

    def _view_init(self, names: list[str], frame: KernelView, key: str, tile: str = "") -> str:
        """Aggregate initialiser of a view: the group parameters as named in the enclosing
        function (whose view is `frame`), that function's image size, and its tile (if any).
        A producer that keeps its guard gets the function's row stride as the width (equal
        to the producer's, legality checks): its guard, not the reader's, says which
        elements it computes."""
        bounds = frame.bounds
        if key in self.kept and frame.dims == 2 and frame.stride is not None:
            bounds = (frame.stride, *bounds[1:2])
        # (long long) spelled out: a braced initialiser may not narrow a size_t or unsigned
        # long bound into the view's long long members.
        size = [_as_long_long(_bound_text(self.unit, frame, b), b.type) for b in bounds[:2]] \
            + ["0"] * (2 - len(bounds[:2]))
        t = tile or "nullptr, 0, 0, 0, 0"
        return "{" + ", ".join([*names, *size, t]) + "}"

    def _fast_reads(self, site: LaunchSite, bounds: tuple[n.Expr, ...],
                    view: KernelView | None = None) -> list[tuple[int, int, str]]:
        """Edits turning `v[Y * S + X]` on 2D views into `v.at2(X, Y, S)` (see _view_struct).
        `view`: the kernel's, when not its entry in `views` (the last kernel's as written)."""
        view = view or self.views[site.kernel.name]
        edits: list[tuple[int, int, str]] = self._channel_reads(site)
        if not bounds:
            return edits
        width = to_c_or(self.unit, bounds[0])
        for p, arg in site.bindings:
            key = param_key(p, arg)
            if not self._is_view(site, p, key) or self._channels(key) is not None:
                continue
            producer = self.views[self.produced[key][0].kernel.name]
            if len(producer.coords) != 2:
                continue
            for node in view.reads.get(p.name, []):
                split = split_row_index(node.index, width)
                if split is None or not _own_span(self.unit, node):
                    continue
                xs, ys, ss = split
                edits.append((node.span.start, node.span.end, f"{p.name}.at2({xs}, {ys}, {ss})"))
        return sorted(edits)

    def _channels(self, key: str | None) -> Channels | None:
        if key not in self.produced:
            return None
        site, out = self.produced[key]
        return self.views[site.kernel.name].channels.get(out.name)

    def _channel_reads(self, site: LaunchSite) -> list[tuple[int, int, str]]:
        """Edits turning a read of a channel view at the reader's own element with a
        constant channel, `p[c * plane + i]` or `p[i * K + c]`, into `p.c<c>_xy(x, y)`: the
        channel's function at the reader's coordinates (legality proved the element the
        same). Reads of another shape keep the subscript, which decodes the channel."""
        view = self.views[site.kernel.name]
        edits: list[tuple[int, int, str]] = []
        if view.fn.body is None or not view.coords:
            return edits
        fr = frame(view.fn.body, view.coords, view.bounds)
        coords = ", ".join(c.name for c in view.coords)
        for p, arg in site.bindings:
            key = param_key(p, arg)
            chans = self._channels(key) if self._is_view(site, p, key) else None
            if chans is None or fr is None:
                continue
            for node in view.reads.get(p.name, []):
                k = classify(node.index, fr)
                if k is None and chans.layout.kind == "interleaved" and \
                        _own_span(self.unit, node):
                    # (another element at a constant channel: that channel's function at
                    # the element, not the subscript's dispatch over every channel, which
                    # would inline each channel's body at every read)
                    c = interleaved_channel(node.index, fr.locals_, chans.layout.factor)
                    if c in chans.numbers and not any(isinstance(x, (n.Index, n.Call))
                                                      for x in node.index.walk()):
                        text = expr_text(self.unit, node.index)
                        edits.append((node.span.start, node.span.end, f"{p.name}.e{c}("
                                      f"(long long)({text}) / {chans.layout.factor})"))
                    continue
                if k is None or not _own_span(self.unit, node) or k[1] not in chans.numbers \
                        or (k[0] or Layout("planar")) != chans.layout:
                    continue
                edits.append((node.span.start, node.span.end, f"{p.name}.c{k[1]}_xy({coords})"))
        return edits

    # ---- the fused kernel ----------------------------------------------------------------

    def kernel(self) -> str:
        k = self.sink.kernel
        # (a kernel whose tile a recomputation reads through its buffer keeps it here)
        view = written_view(self.views[k.name])
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
        view_local: dict[str, str] = {}
        for local, key in views:
            view_local.setdefault(key, local)
        fast = self._fast_reads(self.sink, view.bounds, view)
        tiles = self._tileable(views, fast)
        prologue_lines, tile_args = self._tile_code(tiles, knames, view.bounds)
        # Two parameters of the last kernel given one buffer (`kb<<<>>>(u, out, out, n)`)
        # are one group parameter, named after one of them: the other is declared from it.
        kname_of = {gp.key: gp.kname for gp in self.params}
        same_buffer = [
            f"  [[maybe_unused]] {declare_var(p.type, p.name)} = {kname_of[key]};"
            for p, arg in self.sink.bindings
            if (key := param_key(p, arg)) in kname_of and kname_of[key] != p.name
            and p.name and not self._is_view(self.sink, p, key)]  # (unnamed: unused)
        locals_ = same_buffer + prologue_lines + [
            f"  const {self.at_name(key)}_view {local}"
            f"{self._view_init(knames, view, key, tile_args.get(local, ''))};"
            for local, key in views]
        body = _Slice(self.unit.source_of(k.span.file), k.body.span)
        unconditional = [s for s in view.stores.values() if not s.nested]
        first = min(unconditional, key=lambda s: s.stmt.span.start) if unconditional else None
        scope, own, served = self._own_values(view, views, view_local, first)
        served_at = {start for start, _, _ in served}
        for start, end, text in sorted(served + [e for e in fast if e[0] not in served_at]):
            body.replace_range(start, end, text)
        if scope is not None and own:
            assert first is not None
            decls = "".join(f"{self._own_decl(key, c, name, view_local[key], view, scope, first)};"
                            f"{scope.indent}" for (key, c), name in own.items())
            body.insert(scope.at if scope.close is None else first.stmt.span.start,
                        decls if scope.close is None else "{ " + decls)
        if self.group.stored and view.dims == 0:
            body.insert(*self._tile_stores(k, view_local))
        elif self.group.stored and view.lower_bounded:
            assert view.guard is not None
            body.insert(view.guard.span.start, self._domain_stores(view, view_local))
        elif self.group.stored:
            anchor, why = store_anchor(view)
            if why:
                raise CodegenError(why)
            kname_of = {gp.key: gp.kname for gp in self.params}
            idx = self._own_index_text(view, first if anchor is None else None)
            # Before the statement holding an if/else or an early return the own values may
            # not be declared yet: the stores there evaluate the producers themselves.
            mine = own if anchor is None else {}
            # Prepended with the comma operator, so the statement stays one statement: it may
            # be the unbraced body of an `if` (`if (i < n) out[i] = ...;`).
            stores = "".join(
                self._store_channels(kname_of[key], view_local[key], view, idx, chans, {
                    c: name for (k, c), name in mine.items() if k == key})
                if (chans := self._channels(key)) is not None else
                f"{kname_of[key]}[{idx}] = "
                f"{mine.get((key, None)) or view_local[key] + '[' + idx + ']'}, "
                for key in sorted(self.group.stored))
            if anchor is None:
                assert first is not None
                body.insert(first.stmt.span.start, stores)
            else:  # stores under an if/else, or an early return: before the statement
                body.insert(anchor.span.start, stores[:-2] + "; ")
        if scope is not None and own and scope.close is not None:
            body.insert(scope.close, " }")
        bounds = f"__launch_bounds__({k.launch_bounds}) " if k.launch_bounds else ""
        if self.group.launch_block is not None:
            bx, by = self.group.launch_block
            bounds = f"__launch_bounds__({bx * by}) "
        # A register cap ptxas was seen to meet without spills (plan/resources.annotate),
        # or launch bounds ptxas gives the same occupancy under (resources.weigh_bounds);
        # nvcc refuses __maxnreg__ beside __launch_bounds__, and none is weighed then.
        limit = register_limit(self.group.name, self.group.planned or
                               tuple(s.kernel.name for s in self.group.launches))
        if limit is not None and not bounds:
            bounds = f"{limit} "
        names = ", ".join(s.kernel.name for s in self.group.launches)
        return (f"// cudafuse: {names} fused into one kernel (see cudafuse fuse --explain)\n"
                f"__global__ void {bounds}{self.group.name}({self._decls(knames)}) {{\n"
                + "\n".join(locals_) + f"\n  {body.text()}\n}}\n")

    def _tile_stores(self, k: Function, view_local: dict[str, str]) -> tuple[int, str]:
        """Where and what a last kernel with no coordinates of its own stores of the group's
        intermediates: each at the element its threads load a tile from, before that load
        (kernel/tile_stores.py; legality checked the loads reach every element)."""
        produced = {key for key in self.produced}
        reads = {param_key(p, a): p.name for p, a in self.sink.bindings
                 if p.is_pointer and param_key(p, a) in produced}
        found: TileStore | str = "it loads no intermediate of the group"
        for _, pname in sorted(reads.items()):
            found = tile_store(k, pname)
            if isinstance(found, TileStore):
                break
        if isinstance(found, str):
            raise CodegenError(found)
        kname_of = {gp.key: gp.kname for gp in self.params}
        i = f"{self.prefix}_ti"
        stores = " ".join(f"{kname_of[key]}[{i}] = {view_local[key]}[{i}];"
                          for key in sorted(self.group.stored))
        index = expr_text(self.unit, found.index)
        owner = owner_guard(found)
        if owner:
            stores = f"if ({owner}) {{ {stores} }}"
        return found.stmt.span.start, f"{{ const long long {i} = {index}; {stores} }} "

    def _domain_stores(self, view: KernelView, view_local: dict[str, str]) -> str:
        """The intermediates stored before the guard of a last kernel that writes only the
        interior (legality._union_reason): each at the thread's element under its producer's
        own bounds, so every element the producer writes is stored, borders included."""
        kname_of = {gp.key: gp.kname for gp in self.params}
        coords = [c.name for c in view.coords]
        out = []
        for key in sorted(self.group.stored):
            if self._channels(key) is not None:
                raise CodegenError("an intermediate with channels stored before the guard")
            site, _ = self.produced[key]
            pview = self.views[site.kernel.name]
            bounds = [self._group_text(site, b) for b in pview.bounds]
            cond = " && ".join(f"({c}) < {b}" for c, b in zip(coords, bounds, strict=True))
            if pview.dims == 2:
                assert pview.stride is not None
                stride = self._group_text(site, pview.stride)
                idx = f"(long long)({coords[1]}) * {stride} + ({coords[0]})"
                value = f"{view_local[key]}.at2({coords[0]}, {coords[1]}, {stride})"
            else:
                idx = coords[0]
                value = f"{view_local[key]}[{idx}]"
            out.append(f"if ({cond}) {kname_of[key]}[{idx}] = {value};")
        return " ".join(out) + " "

    def _block_edits(self, view: KernelView, fast: list[tuple[int, int, str]]
                     ) -> list[tuple[int, int, str]]:
        """A producer's block index and thread index as functions of its element x
        (kernel/view.KernelView.block_reads): x / blockDim.x and x % blockDim.x, the fused
        kernel's block being the producer's own (legality._block_reads_reason)."""
        edits = []
        data = self.unit.source_of(view.fn.span.file).data
        x = view.coords[0].name if view.coords else ""
        for m in view.block_reads:
            if m.base.name == "blockDim":
                continue
            spelled = data[m.span.start:m.span.end].decode("utf-8", "replace")
            if "".join(spelled.split()) != f"{m.base.name}.x" or any(
                    s < m.span.end and m.span.start < e for s, e, _ in fast):
                raise CodegenError(f"'{view.fn.name}' reads '{m.base.name}.x' (line "
                                   f"{m.span.line}) through a macro or inside another "
                                   "intermediate's subscript")
            op = "/" if m.base.name == "blockIdx" else "%"
            edits.append((m.span.start, m.span.end, f"((unsigned int)({x}) {op} blockDim.x)"))
        return edits

    def _group_text(self, site: LaunchSite, e: n.Expr) -> str:
        """A producer's expression over its parameters (a bound, a stride) as C text in the
        fused kernel's parameter names."""
        names = {}
        for p, arg in site.bindings:
            key = param_key(p, arg)
            gp = next((g for g in self.params if g.key == key), None)
            if gp is not None:
                names[p.decl] = gp.kname

        def change(x: n.Node) -> n.Node | None:
            if isinstance(x, n.Ref) and x.kind == "param" and x.decl in names:
                return n.Ref(names[x.decl], "param", x.decl, x.const_value, type=x.type)
            return None

        renamed = replace_nodes(e, change)
        assert isinstance(renamed, n.Expr)
        if any(isinstance(x, n.Ref) and x.kind not in ("param", "global", "function", "enum")
               and x.const_value is None for x in renamed.walk()) or any(
                isinstance(x, n.Ref) and x.kind == "param" and x.decl not in names
                for x in renamed.walk()):
            raise CodegenError(f"'{site.kernel.name}''s bound is not an expression of its "
                               "parameters")
        try:
            return "(" + to_c(renamed) + ")"
        except Unprintable as exc:
            raise CodegenError(f"'{site.kernel.name}''s bound cannot be printed: {exc}") from exc

    def _own_index_text(self, view: KernelView, first: OwnStore | None) -> str:
        """The last kernel's own element as C text: its first store's index, or, when that
        store is a channel's (or there is none outside an if/else), the element from the
        coordinates."""
        if first is not None and first.param not in view.channels:
            return expr_text(self.unit, first.index, first.target)
        c = view.coords
        if len(c) == 1:
            return c[0].name
        if view.stride is None:
            raise CodegenError(f"'{view.fn.name}' has no row stride for its own element")
        return f"(long long){c[1].name} * ({expr_text(self.unit, view.stride)}) + {c[0].name}"

    def _store_channels(self, buf: str, local: str, view: KernelView, idx: str,
                        chans: Channels, own: dict[int | None, str]) -> str:
        """Stores of every channel of an intermediate at the last kernel's element `idx`
        (comma-terminated, like the other stores): the channel's own value where the kernel
        declared one (`own`), else its function."""
        coords = ", ".join(c.name for c in view.coords)
        if chans.layout.kind == "planar":
            plane = " * ".join(f"(long long)({to_c_or(self.unit, b)})" for b in view.bounds)
            at = [f"(long long){c} * {plane} + ({idx})" for c in chans.numbers]
        else:
            at = [f"({idx}) * {chans.layout.factor} + {c}" for c in chans.numbers]
        return "".join(f"{buf}[{a}] = {own.get(c) or f'{local}.c{c}_xy({coords})'}, "
                       for a, c in zip(at, chans.numbers, strict=True))

    def _own_values(self, view: KernelView, views: list[tuple[str, str]],
                    view_local: dict[str, str], first: OwnStore | None
                    ) -> tuple[OwnScope | None, dict[str, str], list[tuple[int, int, str]]]:
        """The producers the last kernel evaluates once at its own element (see ownvalue):
        those it stores, and those it reads there twice or in a loop. Returns where, the
        local per buffer key, and the edits serving its reads at that element from them."""
        data = self.unit.source_of(view.fn.span.file).data
        scope = own_scope(data, view, first) if first is not None else None
        assert view.fn.body is not None
        names = {x.name for x in view.fn.body.walk() if isinstance(x, n.VarDecl)}
        if scope is None or names & set(view_local.values()):
            return None, {}, []
        reads: dict[str, list[n.Index]] = {}
        for local, key in views:
            reads.setdefault(key, []).extend(
                r for r in own_reads(scope, view, local) if _own_span(self.unit, r))
        own: dict[tuple[str, int | None], str] = {}
        served: list[tuple[int, int, str]] = []
        fr = frame(view.fn.body, view.coords, view.bounds)
        for key in sorted(view_local, key=lambda k: self.produced[k][0].index):
            chans = self._channels(key)
            if chans is None:
                per: dict[int | None, list[n.Index]] = {None: reads.get(key, [])}
            else:  # each channel a value of its own, read at a constant channel
                per = {c: [] for c in chans.numbers}
                for local in (lc for lc, k in views if k == key):
                    for r in view.reads.get(local, []):
                        k = classify(r.index, fr) if fr is not None else None
                        if k is not None and k[1] in per and scope.at <= r.span.start and \
                                r.span.end <= scope.end and _own_span(self.unit, r) and \
                                (k[0] or Layout("planar")) == chans.layout:
                            per[k[1]].append(r)
            for c, mine in per.items():
                if key not in self.group.stored and len(mine) < 2 and \
                        not any(in_loop(view, r, scope) for r in mine):
                    continue
                own[(key, c)] = f"{self.prefix}_e{len(own)}"
                served += [(r.span.start, r.span.end, own[(key, c)]) for r in mine]
        return scope, own, served

    def _own_decl(self, key: str, channel: int | None, name: str, local: str,
                  view: KernelView, scope: OwnScope, first: OwnStore) -> str:
        """`const T cf_e0 = l.at2(x, y, w)`: the producer of `key` at the element `first`
        stores, through the view's division-free path when the index is written y * S + x."""
        site, out = self.produced[key]
        elem = _nonconst(out.pointee) or "float"
        if channel is not None:  # (the channel's function at K's coordinates: no division)
            return (f"const {elem} {name} = "
                    f"{local}.c{channel}_xy({', '.join(c.name for c in view.coords)})")
        idx = expr_text(self.unit, first.index, first.target)
        init = f"{local}[{idx}]"
        if self.views[site.kernel.name].dims == 2 and view.bounds:
            index = scope.spelled(first.index)
            split = split_row_index(index, to_c_or(self.unit, view.bounds[0])) \
                if index is not None and _own_span(self.unit, first.target) else None
            if split is not None:
                init = f"{local}.at2({split[0]}, {split[1]}, {split[2]})"
        return f"const {elem} {name} = {init}"

    def _tileable(self, views: list[tuple[str, str]], fast: list[tuple[int, int, str]]
                  ) -> list[tuple[str, str]]:
        """The (local, key) views to back with a shared-memory tile: those the plan asked
        for that tile_problem finds nothing against, when every read of them in the last
        kernel takes the at2 path, while the tiles fit the static shared-memory limit.
        Records what it staged (`staged_tiles`) and why it declined the rest
        (`declined_tiles`): the driver's figures and notes come from these."""
        self.staged_tiles, self.declined_tiles, self.tile_bytes = {}, {}, 0
        if not self.group.tiles:
            return []
        local_of = {}
        for local, key in views:
            local_of.setdefault(key, local)
        rewritten = {start for start, _, _ in fast}
        sink_view = written_view(self.views[self.sink.kernel.name])
        out, used = [], 0
        for key, (rx, ry) in sorted(self.group.tiles.items()):
            why = None
            if self.group.block is None:
                why = f"the block of '{self.sink.kernel.name}' is not a constant shape"
            elif key not in self.produced:
                why = "no kernel of the group produces it"
            elif key not in local_of:
                why = f"'{self.sink.kernel.name}' does not read it"
            else:
                site, p = self.produced[key]
                why = tile_problem(self.unit, self.views[site.kernel.name], p.name,
                                   self.sink.kernel, sink_view, local_of[key])
                if why is None and key in self.kept:  # (another kernel of the group reads it)
                    why = (f"'{site.kernel.name}' keeps its guard for a reader in the group "
                           "other than the last kernel: outside it the element is what "
                           "memory holds, which a tile filled over the reader's image would "
                           "not match")
            if why is None and not all(node.span.start in rewritten
                                       for node in sink_view.reads[local_of[key]]):
                why = (f"'{self.sink.kernel.name}' reads it in a form the tile cannot serve "
                       "(not y * stride + x spelled in the kernel's own text)")
            if why is None:
                assert self.group.block is not None
                bx, by = self.group.block
                elem = elem_size(self.produced[key][1].pointee) or 4
                size = (bx + 2 * rx) * (by + 2 * ry) * elem
                if used + size > STATIC_SHARED_LIMIT:
                    why = (f"the tile ({size} bytes) would take the fused kernel's shared "
                           f"memory past {STATIC_SHARED_LIMIT} bytes, the static limit")
                else:
                    used += size
            if why is None:
                out.append((local_of[key], key))
                self.staged_tiles[key] = (rx, ry)
            else:
                self.declined_tiles[key] = why
        self.tile_bytes = used
        # (in views' order, as before: the tiles' names follow it)
        order = {key: i for i, (_, key) in enumerate(views)}
        return sorted(out, key=lambda t: order[t[1]])

    def _tile_code(self, tiles: list[tuple[str, str]], knames: list[str],
                   bounds: tuple[n.Expr, ...]) -> tuple[list[str], dict[str, str]]:
        """Shared-memory tiles (block plus halo), filled by the whole block before the last
        kernel's body runs: each element evaluates its producer once, at its own in-image
        coordinates. The view serves reads that land in the tile and recomputes the rest."""
        if not tiles:
            return [], {}
        assert self.group.block is not None
        bx, by = self.group.block
        p = self.prefix
        width, height = (to_c_or(self.unit, b) for b in bounds[:2])
        lines, args = [], {}
        for j, (local, key) in enumerate(tiles):
            rx, ry = self.group.tiles[key]
            tw, th = bx + 2 * rx, by + 2 * ry
            site, out = self.produced[key]
            elem = _nonconst(out.pointee) or "float"
            t = f"{p}_tile{j}"
            lines += [
                f"  __shared__ {elem} {t}[{tw * th}];  // {local}: {bx}x{by} block + halo "
                f"{rx},{ry}",
                f"  const long long {t}_x0 = (long long)blockIdx.x * {bx} - {rx}, "
                f"{t}_y0 = (long long)blockIdx.y * {by} - {ry};",
                f"  for (int {p}_k = threadIdx.y * {bx} + threadIdx.x; {p}_k < {tw * th}; "
                f"{p}_k += {bx * by}) {{",
                f"    const long long {p}_u = {t}_x0 + {p}_k % {tw}, "
                f"{p}_v = {t}_y0 + {p}_k / {tw};",
                f"    if ({p}_u >= 0 && {p}_u < {width} && {p}_v >= 0 && {p}_v < {height})",
                f"      {t}[{p}_k] = {self.at_name(key)}_xy({p}_u, {p}_v, {', '.join(knames)});",
                "  }"]
            args[local] = f"{t}, {t}_x0, {t}_y0, {tw}, {th}"
        lines.append("  __syncthreads();")
        return lines, args

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

    def launch_config(self, arg_text: Callable[[str], str] | None = None,
                      launch: n.KernelLaunch | None = None) -> str:
        """`<<<grid, block[, shared[, stream]]>>>` for the group's launch block: the grid
        covers the sink's guard bounds (checked by launch_block_problem). `arg_text` and
        `launch`: the sink's arguments and launch in other terms (a wrapper's)."""
        assert self.group.launch_block is not None
        bx, by = self.group.launch_block
        view = self.views[self.sink.kernel.name]
        size = []
        for bound in view.bounds[:2]:
            assert isinstance(bound, n.Ref)
            arg = self.sink.arg_for(bound.name)
            assert arg is not None
            size.append(f"({arg_text(bound.name) if arg_text else expr_text(self.unit, arg)})")
        launch = launch or self.sink.launch
        extra = [expr_text(self.unit, e) for e in (launch.shared, launch.stream) if e is not None]
        if launch.stream is not None and launch.shared is None:
            extra.insert(0, "0")
        tail = "".join(f", {e}" for e in extra)
        return (f"<<<dim3(({size[0]} + {bx - 1}) / {bx}, ({size[1]} + {by - 1}) / {by}), "
                f"dim3({bx}, {by}){tail}>>>")

    def host_edits(self, rw: Rewriter) -> None:
        launch = self.sink.launch
        src = self.unit.source
        for site in self.group.launches:
            # Inside a macro's expansion libclang locates a launch at the macro's name: its
            # text cannot be rewritten in place (`CHECK(k<<<g, b>>>(x))`).
            callee = site.launch.callee_span
            if not spells_kernel(self.unit.text(callee), site.kernel.name):
                raise CodegenError(f"the launch of '{site.kernel.name}' is written inside "
                                   "a macro invocation")
        args = ", ".join(expr_text(self.unit, gp.host_arg) for gp in self.params)
        if is_api_launch(launch):  # a cudaLaunchKernel call: rewritten whole (api_launches)
            config = ", ".join(expr_text(self.unit, e) for e in (
                launch.grid, launch.block, launch.shared, launch.stream) if e is not None)
            text = f"{self.group.name}<<<{config}>>>({args})"
            if status_used(self.sink.stmt, launch):  # `CHECK(...)`: the launch's status
                text = f"({text}, cudaPeekAtLastError())"
            rw.replace(launch.span, text, "fused launch (was a cudaLaunchKernel call)")
        else:
            rw.replace(launch.callee_span, self.group.name, "fused launch")
            close = _find_args(src, launch.config_span.end, launch.span.end)
            rw.replace_range(close[0], close[1], f"({args})", "fused launch arguments")
        if self.group.launch_block is not None:
            opened = src.data.find(b"<<<", launch.callee_span.end, launch.config_span.end)
            rw.replace_range(opened, launch.config_span.end, self.launch_config(),
                             "fused launch with the chosen block")
        for site in self.group.launches[:-1]:
            if site.wrapper is not None and site.wrapper.copied:
                continue  # (a launch of a wrapper written as a copy: emit/helper_calls.py)
            if status_used(site.stmt, site.launch):  # its check stays, of no error
                rw.replace(site.launch.span, "cudaSuccess",
                           f"launch of {site.kernel.name} fused")
                continue
            rw.replace(site.stmt.span,
                       f"/* cudafuse: {site.kernel.name} fused into {self.group.name} */",
                       f"launch of {site.kernel.name} fused")
        if self.group.checks:
            self._versioned(rw)

    def _versioned(self, rw: Rewriter) -> None:
        """`if (<checks>) { <fused launch> } else { <the original launches> }` around the
        group's launch statement (see host/runtime_check.py)."""
        src = self.unit.source
        stmt = self.sink.stmt
        end = _statement_end(src.data, stmt.span.end)
        originals = []
        for site in self.group.launches:
            text = self.unit.text(site.stmt.span)
            originals.append(text if text.rstrip().endswith(";") else text + ";")
        rw.insert(stmt.span.start, "if (" + " && ".join(f"({c})" for c in self.group.checks)
                  + ") { ", "fused launch under its run-time coverage check")
        rw.insert(end, " } else { /* cudafuse: the original launches */ "
                  + " ".join(originals) + " }", "the original launches otherwise")


def launch_block_problem(view: KernelView, launch: n.KernelLaunch,
                         bindings: tuple[tuple[Param, n.Expr], ...]) -> str:
    """Why the fused launch of a group whose last kernel is `view` cannot take another block
    shape ('' when it can): the grid is rebuilt from the guard's bounds, which must be
    parameters bound to host expressions, and the mapping must read blockDim."""
    if view.dims != 2:
        return "only 2D groups are relaunched with another block"
    if any(b is not None for b in view.block_sizes):
        return "its mapping assumes a block size (a constant instead of blockDim)"
    for bound in view.bounds[:2]:
        if not (isinstance(bound, n.Ref) and bound.kind == "param" and
                any(p.name == bound.name for p, _ in bindings)):
            return "the image size in its guard is not a kernel parameter"
    if launch.config_span.end <= launch.callee_span.end:
        return "its launch configuration is not written out"
    return ""


def _bound_text(unit: TranslationUnit, frame: KernelView, bound: n.Expr) -> str:
    """A guard bound as C text where the fused kernel builds its views, before the body
    declares anything: a local it reads (`int r = k / 2; ... x >= w - r`) is replaced by its
    initialiser when that local is declared before the guard, never written, and reads only
    parameters and constants (a few levels deep)."""
    if not any(isinstance(x, n.Ref) and x.kind == "local" and x.const_value is None
               for x in bound.walk()):
        return to_c_or(unit, bound)
    assert frame.fn.body is not None
    written = assigned_decls(frame.fn.body)
    inits: dict[str, n.Expr] = {}
    for stmt in frame.fn.body.body:
        if stmt is frame.guard:
            break
        if isinstance(stmt, n.DeclStmt):
            inits.update((d.decl, d.init) for d in stmt.decls
                         if d.init is not None and d.decl not in written)

    def change(x: n.Node) -> n.Node | None:
        if isinstance(x, n.Ref) and x.kind == "local" and x.decl in inits:
            return inits[x.decl]
        return None

    e = bound
    for _ in range(4):
        e = replace_nodes(e, change)  # type: ignore[assignment]
    left = next((x.name for x in e.walk() if isinstance(x, n.Ref) and x.kind not in (
        "param", "global", "function", "enum") and x.const_value is None), None)
    try:
        if left is None:
            return "(" + to_c(e) + ")"
    except Unprintable:
        pass
    raise CodegenError(f"'{frame.fn.name}' bounds its guard by its local '{left or '?'}', "
                       "which the fused kernel's views cannot use")


def to_c_or(unit: TranslationUnit, e: n.Expr) -> str:
    try:
        return "(" + to_c(e) + ")"
    except Unprintable:
        return expr_text(unit, e)


def _terms(e: n.Expr, sign: int = 1) -> list[tuple[int, n.Expr]]:
    """The signed terms of a sum."""
    while isinstance(e, n.Cast) and not e.explicit:
        e = e.operand
    if isinstance(e, n.Binary) and e.op in ("+", "-"):
        return _terms(e.lhs, sign) + _terms(e.rhs, sign if e.op == "+" else -sign)
    return [(sign, e)]


# The most static shared memory a kernel may declare (CUDA: 48 KiB without an opt-in).
STATIC_SHARED_LIMIT = 48 * 1024


def _bare(text: str) -> str:
    """C text without the parentheses to_c_or puts around it, for a message."""
    inner = text[1:-1]
    if text.startswith("(") and text.endswith(")") and _one_group(text):
        return inner
    return text


def tile_problem(unit: TranslationUnit, producer: KernelView, out: str, consumer: Function,
                 reader: KernelView, local: str) -> str | None:
    """Why a shared-memory tile of `producer`'s output `out` cannot serve the reads of the
    last kernel `consumer` (whose view is `reader`) through its parameter `local`; None when
    it can. Decided on the kernels alone, so the plan asks it before pricing a tile (driver)
    and the emitter again before staging one: the cost model prices what is emitted."""
    name, sink = producer.fn.name, consumer.name
    if reader.grid_stride:
        return f"'{sink}' loops past its block (grid-stride), beyond any block's tile"
    if reader.transposed or producer.transposed:
        return "a tile is a block's rectangle with x along the row, and x walks the rows"
    if producer.channels.get(out) is not None:
        return f"'{name}' stores several channels per element (channels are not tiled)"
    if len(producer.coords) != 2 or len(reader.coords) != 2:
        return f"'{name}' and '{sink}' are not both 2D"
    if len(producer.bounds) != 2 or len(reader.bounds) != 2:
        return f"the guards of '{name}' and '{sink}' do not bound both coordinates"
    if keeps_guard(producer, [reader]):
        if producer.lower_bounded:
            what = "its guard has lower bounds"
        elif producer.stride is not None and \
                to_c_or(unit, producer.stride) != to_c_or(unit, producer.bounds[0]):
            stride, width = (_bare(to_c_or(unit, e)) for e in (producer.stride,
                                                               producer.bounds[0]))
            what = f"its rows are '{stride}' apart, a run-time stride, not its width '{width}'"
        else:
            what = f"its bounds are not those of '{sink}'"
        return (f"'{name}' keeps its guard ({what}): outside it the element is what memory "
                "holds, which a tile filled over the reader's image would not match")
    needed, why = subscript_only(unit, consumer, local)
    if why:
        return why
    if needed:
        callee = sorted(needed)[0][0]
        return f"'{sink}' passes it to '{callee}', whose reads a tile does not serve"
    if local not in reader.reads:
        return f"'{sink}' does not subscript it"
    width = to_c_or(unit, reader.bounds[0])
    for node in reader.reads[local]:
        if split_row_index(node.index, width) is None or not _own_span(unit, node):
            return (f"'{sink}' reads it at line {node.span.line} in a form the tile cannot "
                    "serve (not y * stride + x spelled in the kernel's own text)")
    return None


def split_row_index(index: n.Expr, width: str) -> tuple[str, str, str] | None:
    """(X, Y, S) as C text for an index written Y * S + X, preferring S equal to `width`.
    None when the index has no single product term. Any split is correct at run time (the
    view checks it); choosing S = width is what makes the fast path fire."""
    terms = _terms(index)
    products = [(i, t) for i, (sg, t) in enumerate(terms)
                if sg == 1 and isinstance(t, n.Binary) and t.op == "*"]
    if len(products) != 1:
        return None
    i, prod = products[0]
    try:
        lhs, rhs = "(" + to_c(prod.lhs) + ")", "(" + to_c(prod.rhs) + ")"
        rest = [("+" if sg == 1 else "-") + " (" + to_c(t) + ")"
                for j, (sg, t) in enumerate(terms) if j != i]
    except Unprintable:
        return None
    y, stride = (rhs, lhs) if lhs == width else (lhs, rhs)
    x = "0 " + " ".join(rest) if rest else "0"
    return x, y, stride


def _statement_end(data: bytes, end: int) -> int:
    """The offset just past the `;` that ends the expression statement ending at `end`
    (a statement's span may stop before its semicolon)."""
    pos = end
    while pos < len(data) and data[pos:pos + 1] in (b" ", b"\t", b"\n", b"\r"):
        pos += 1
    if data[pos:pos + 1] == b";":
        return pos + 1
    if data[end - 1:end] == b";":
        return end
    raise CodegenError("the group's launch statement does not end in ';'")


def _line_start(data: bytes, start: int, floor: int) -> int:
    """`start` moved back over the indentation before it (not before `floor`)."""
    pos = start
    while pos > floor and data[pos - 1:pos] in (b" ", b"\t"):
        pos -= 1
    return pos if pos > floor and data[pos - 1:pos] == b"\n" else start


def _through_line(data: bytes, end: int) -> int:
    """`end` moved past a following `;` and the rest of its line when that is blank, so that
    removing a statement leaves no stray `;` or empty line behind."""
    pos = end
    while pos < len(data) and data[pos:pos + 1] in (b" ", b"\t"):
        pos += 1
    if data[pos:pos + 1] == b";":
        pos += 1
    rest = pos
    while rest < len(data) and data[rest:rest + 1] in (b" ", b"\t", b"\r"):
        rest += 1
    return rest + 1 if data[rest:rest + 1] == b"\n" else pos


def _inside(span: Span, outer: Span) -> bool:
    return span.end > span.start and outer.start <= span.start and span.end <= outer.end


def _store_spans(view: KernelView) -> list[tuple[int, int]]:
    """The spans of the statements that store the kernel's outputs (each becomes a return
    or nothing in a value function)."""
    out = [(st.stmt.span.start, st.stmt.span.end) for name in view.stores
           for st in view.all_stores.get(name, (view.stores[name],))]
    out += [(cs.stmt.span.start, cs.stmt.span.end) for chans in view.channels.values()
            for cs in chans.stores]
    return out


def _copy_reads_in(view: KernelView, store, fast: list[tuple[int, int, str]]
                   ) -> list[tuple[int, int, str]]:
    """The edits of a stored value: the reads of a shared copy or tile inside it, read
    through their buffer (staged_copy.py, staged_tile.py, tile_writers.py), and the other
    edits outside those reads (their text is the buffer's read, not the original's)."""
    copy = view.staged_copy
    v = store.value.span
    mine = [] if copy is None else [(sp.start, sp.end, text) for sp, text in copy.renamed
                                    if v.start <= sp.start and sp.end <= v.end]
    if not mine:
        return fast
    s0, e0 = store.stmt.span.start, store.stmt.span.end
    if copy is not None and any(s0 <= sp.start and sp.end <= e0 and not (
            v.start <= sp.start and sp.end <= v.end) for sp, _ in copy.renamed):
        raise CodegenError(f"'{view.fn.name}' reads its shared copy in a store's subscript "
                           f"(line {store.stmt.span.line})")
    rest = [e for e in fast if not any(a <= e[0] and e[1] <= b for a, b, _ in mine)]
    return sorted(rest + mine)


def _render(unit: TranslationUnit, e: n.Expr, edits: list[tuple[int, int, str]]) -> str:
    """The text of `e` with the edits that fall inside it applied."""
    out, pos = [], e.span.start
    data = unit.source_of(e.span.file).data
    for start, end, text in edits:
        if e.span.start <= start and end <= e.span.end:
            out.append(data[pos:start].decode("utf-8"))
            out.append(text)
            pos = end
    out.append(data[pos:e.span.end].decode("utf-8"))
    return "".join(out)


def _own_span(unit: TranslationUnit, node: n.Index) -> bool:
    """Is `node` spelled in the file as base[...] (not produced by a macro)?"""
    base = node.base
    while isinstance(base, n.Cast) and not base.explicit:
        base = base.operand
    if not isinstance(base, n.Ref) or node.span.end <= node.span.start:
        return False
    text = unit.text(node.span)
    return text.startswith(base.name) and text.rstrip().endswith("]") and \
        base.span.start == node.span.start and base.span.end > base.span.start


def _find_args(src: SourceFile, start: int, end: int) -> tuple[int, int]:
    """The byte range of the launch's parenthesised argument list."""
    open_ = src.data.find(b"(", start, end)
    if open_ < 0 or src.data[end - 1:end] != b")":
        raise CodegenError("cannot find the launch's argument list")
    return open_, end


def declare_var(type_: str, name: str) -> str:
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
        try:
            self.rw.replace_range(start - self.span.start, end - self.span.start, text)
        except OverlappingEdits:
            # Two edits on the same bytes: statements that share text (one macro expanding
            # to several, whose spans all name its use). Legality refuses the statements it
            # knows of (plan/legality.py); any other such text is refused here, not crashed on.
            raise CodegenError("two of its rewrites fall on the same text (statements "
                               "written by one macro)") from None

    def insert(self, offset: int, text: str) -> None:
        self.replace_range(offset, offset, text)

    def text(self) -> str:
        return self.rw.apply().decode("utf-8")


