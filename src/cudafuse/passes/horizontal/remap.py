"""A part's body as it runs inside the fused kernel.

The kernel's own text is kept and wrapped in a scope that declares local variables named
`threadIdx`, `blockDim`, `blockIdx` and `gridDim` holding the part's values. A local name
shadows the builtin (a variable in nvcc, an inline global in the emulator), so every use is
remapped, including uses inside the user's macros, whose text cannot be edited: libclang gives
a macro expansion's nodes the invocation's span. Parameters are copied into locals of their
original names for the same reason, so the fused kernel's renamed parameters never clash.
Only what cannot be shadowed is edited: `__syncthreads()` (a function; in the emulator a
macro) and `extern __shared__` declarations (every such array starts at the same address, so
each part must get its own region).
"""

from __future__ import annotations

from dataclasses import dataclass

from cudafuse.codegen.splice import Rewriter
from cudafuse.codegen.templates import scope_lines, template_names
from cudafuse.ir.source import SourceFile
from cudafuse.passes.horizontal import coop
from cudafuse.passes.horizontal.barrier_macros import barrier_suffix
from cudafuse.passes.horizontal.discarded import discards
from cudafuse.passes.horizontal.discarded import scope_lines as dependent_scope_lines
from cudafuse.passes.horizontal.helpers import (
    SmemView,
    call_edits,
    copy_name,
    copy_text,
    reducing_edit,
)
from cudafuse.passes.horizontal.parts import Part, Shape
from cudafuse.passes.horizontal.rename import identifier_tokens
from cudafuse.passes.horizontal.scopes import Namespaces, named, using_directive, wrapped
from cudafuse.passes.horizontal.shared_split import dyn_pointer


@dataclass(frozen=True)
class Names:
    """Generated identifiers, all under one prefix that the inputs do not use."""

    prefix: str

    def param(self, part: int, name: str) -> str:
        return f"{self.prefix}_p{part}_{name}"

    @property
    def tid(self) -> str:
        return f"{self.prefix}_tid"

    @property
    def bid(self) -> str:
        return f"{self.prefix}_bid"

    def grid(self, part: int) -> str:
        return f"{self.prefix}_grid{part}"

    def nblocks(self, part: int) -> str:
        return f"{self.prefix}_nblocks{part}"

    @property
    def dyn(self) -> str:
        return f"{self.prefix}_dyn_smem"

    @property
    def off2(self) -> str:
        return f"{self.prefix}_smem_off2"

    @property
    def off2_shared(self) -> str:
        """Part 2's region offset for code that cannot take it as a parameter."""
        return f"{self.prefix}_smem_off2_s"

    def coop(self, part: int) -> str:
        """The stem of part `part`'s cooperative-groups names (coop.py)."""
        return f"{self.prefix}_p{part}"

    @property
    def part2_ns(self) -> str:
        return f"{self.prefix}_part2"

    def usings(self, part: Part) -> tuple[str, ...]:
        return tuple(f"using {self.part2_ns}::{c};" for c in part.split.classes)


def _split(linear: str, shape: Shape) -> str:
    """{x, y, z} of a linear id within `shape` (simplified for 1D and 2D shapes)."""
    if shape.dims == 1:
        return f"{{{linear}, 0u, 0u}}"
    x = f"{linear} % {shape.x}u"
    if shape.dims == 2:
        return f"{{{x}, {linear} / {shape.x}u, 0u}}"
    return f"{{{x}, {linear} / {shape.x}u % {shape.y}u, {linear} / {shape.x * shape.y}u}}"


def _split_grid(linear: str, grid: str) -> str:
    return (f"{{{linear} % {grid}.x, {linear} / {grid}.x % {grid}.y, "
            f"{linear} / ({grid}.x * {grid}.y)}}")


def part_scope(part: Part, names: Names, mode: str, thread_offset: int, block_offset: str,
               indent: str, space: Namespaces = ()) -> str:
    """The block statement that runs part `part` for the current thread (the fused kernel
    is a member of `space`; a kernel of other namespaces finds their names through a
    using-directive, scopes.py)."""
    fn = part.fn
    unit = part.unit
    i = part.index
    p = names.prefix
    keep = "[[maybe_unused]] "
    t = f"{p}_t{i}"
    b = f"{p}_b{i}"
    tid = names.tid if not thread_offset else f"{names.tid} - {thread_offset}u"
    bid = names.bid if block_offset == "0" else f"{names.bid} - {block_offset}"
    directive = using_directive(fn.namespaces) if named(fn.namespaces) != space else ""
    lines = [
        *([directive] if directive else []),
        *(dependent_scope_lines if discards(part) else scope_lines)(part.bindings, p, i),
        f"const unsigned {t} = {tid};",
        f"const unsigned {b} = {bid};",
        f"{keep}const uint3 threadIdx = {_split(t, part.block)};",
        f"{keep}const dim3 blockDim({part.block.x}u, {part.block.y}u, {part.block.z}u);",
        f"{keep}const uint3 blockIdx = {_split_grid(b, names.grid(i))};",
        f"{keep}const dim3 gridDim = {names.grid(i)};",
    ]
    lines += names.usings(part)  # part 2's copies of classes declaring shared memory
    for prm in fn.params:
        if prm.name:
            lines.append(f"{keep}decltype({names.param(i, prm.name)}) {prm.name} = "
                         f"{names.param(i, prm.name)};")
    base = names.dyn if (i == 1 or mode == "block") else f"({names.dyn} + {names.off2})"
    for g in part.dyn_globals:
        lines.append(f"{keep}{dyn_pointer(g.type, g.name, base)};")
    body = _edited_body(part, names, mode, base)
    head = "".join(f"{indent}  {line}\n" for line in lines)
    return (f"{indent}{{  // part {i}: kernel '{part.display}' ({unit.path}:{fn.span.line})\n"
            f"{head}{indent}  {body}\n{indent}}}\n")


def _edited_body(part: Part, names: Names, mode: str, base: str) -> str:
    span = part.fn.body_span
    source = part.unit.source
    rw = Rewriter(SourceFile(source.path, source.data[span.start:span.end]))
    if mode == "thread":
        for call in part.barriers:
            suffix = barrier_suffix(part.unit, call)
            assert suffix is not None  # parts.py refuses what cannot be rewritten
            rw.replace_range(call.span.start - span.start, call.span.end - span.start,
                             f"CUDAFUSE_BAR_SYNC({part.index}, {part.block.count}){suffix}",
                             "__syncthreads -> the part's named barrier")
        for call in part.reducing:
            edit = reducing_edit(part.unit.code, call, part.index, part.block.count)
            assert edit is not None  # parts.py refuses what is not written out
            rw.replace_range(edit[0] - span.start, edit[1] - span.start, edit[2],
                             f"{call.callee} -> bar.red on the part's barrier")
    copies = {h.decl: copy_name(names.prefix, part.index, h) for h in part.copies.functions}
    edits, _ = call_edits(part.unit, part.fn.body, copies)
    for start, end, text in edits:
        rw.replace_range(start - span.start, end - span.start, text, "call of a per-part copy")
    if part.uses_coop:
        for start, end, text in coop.edits(part.unit, part.fn.body, span, names.coop(part.index)):
            rw.replace_range(start - span.start, end - span.start, text,
                             "the part's block group")
    for decl in part.dyn_shared:
        rw.replace_range(decl.span.start - span.start, decl.span.end - span.start,
                         dyn_pointer(decl.var_type, decl.name, base),
                         "extern __shared__ -> the part's region")
    # A template template parameter has no block-scope declaration: its uses (tokens of
    # code, not comments, strings or members) name the namespace-scope alias template.
    for old, new in template_names(part.bindings, names.prefix, part.index).items():
        for start, end in identifier_tokens(rw.source.data, old):
            rw.replace_range(start, end, new, "template template parameter -> its alias")
    return rw.apply().decode("utf-8")


def helper_copies(part: Part, names: Names, mode: str) -> str:
    """The part's copies of the helpers that need its builtins, barrier or shared arrays."""
    copies = {h.decl: copy_name(names.prefix, part.index, h) for h in part.copies.functions}
    barrier = f"CUDAFUSE_BAR_SYNC({part.index}, {part.block.count})" if mode == "thread" \
        else ""
    out = []
    smem = SmemView(f"({names.dyn} + {names.off2_shared})", names.usings(part)) \
        if mode == "thread" and part.index == 2 else None
    for h, why in zip(part.copies.functions, part.copies.reasons, strict=True):
        reducing = (part.index, part.block.count) if mode == "thread" else None
        # A copy is a member of its helper's namespaces: its body finds names as there.
        out.append(f"// '{h.name}' for part {part.index} ('{part.display}'): it {why}\n" +
                   wrapped(h.namespaces, copy_text(
                       part.unit, h, copies[h.decl], copies, barrier, reducing, smem,
                       names.coop(part.index) if part.uses_coop else "")) + "\n")
    return "\n".join(out)


def coop_text(part: Part, names: Names, mode: str) -> str:
    """The part's own cooperative-groups block group (coop.py), if its code uses one."""
    if not part.uses_coop:
        return ""
    b = part.block
    return coop.group_text(names.coop(part.index), part.index, part.display, b.x, b.y, b.z,
                           mode) + "\n"
