"""Kernel parameters that every launch in the file passes the same integer constant.

Real pipelines pass filter sizes and image sizes as literals or macros
(`sobel<<<g, b>>>(in, out, w, h, 3)`, PolyBench's `kernel<<<...>>>(N, a, b)` with `#define
N 4096`), and the kernel's guard or reads use them (`x >= width - kernel_size / 2`). Read as
a parameter, such a guard does not prove that the reads at x + 1 stay inside the image, nor
that the grid covers the bound. Every analysis of the vertical pass therefore sees such a
parameter as the constant it is at every launch the file makes (`Ref.const_value`), as it
sees `const int R = 2;`.

This is sound for what is fused: a fused kernel replaces launches of this file only, and
each of them passes that very constant (the fused kernel still takes the parameter and is
passed the same value; its text is the user's, only the facts change). A kernel referred
to other than by a launch (a function pointer, cudaLaunchKernel, cudaFuncSetAttribute) or
launched with differing values keeps its parameters as they are, and so does a parameter
the kernel writes or whose address it takes.
"""

from __future__ import annotations

import dataclasses

from cudafuse.analysis.evaluate import arith, assigned_decls
from cudafuse.analysis.symbolic import Poly
from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit
from cudafuse.ir.substitute import replace_nodes
from cudafuse.ir.types import is_integral, is_unsigned


def _constant(e: n.Expr) -> int | None:
    while isinstance(e, n.Cast):
        e = e.operand
    if isinstance(e, n.IntLit):
        return e.value
    if isinstance(e, n.Ref) and isinstance(e.const_value, int) and \
            not isinstance(e.const_value, bool):
        return e.const_value
    if isinstance(e, n.Unary) and e.op in ("-", "+"):
        inner = _constant(e.operand)
        return None if inner is None else -inner if e.op == "-" else inner
    if isinstance(e, n.Binary) and e.op in ("+", "-", "*", "/", "%", "<<", ">>"):
        a, b = _constant(e.lhs), _constant(e.rhs)
        if a is None or b is None:
            return None
        return arith(e.op, Poly.const(a), Poly.const(b)).const_value  # C's folding
    return None


def _bodies(unit: TranslationUnit) -> list[n.Node]:
    fns = (*unit.functions, *unit.methods, *unit.method_hosts, *unit.header_functions)
    return [f.body for f in fns if f.body is not None]


def launch_constants(unit: TranslationUnit) -> dict[str, dict[str, int]]:
    """kernel decl -> {parameter decl: the constant every launch of it passes}."""
    kernels = {f.decl: f for f in unit.functions if f.is_kernel and f.body is not None
               and not f.is_template}
    seen: dict[str, dict[str, int | None]] = {}
    referenced: set[str] = set()
    for body in _bodies(unit):
        for node in body.walk():
            if isinstance(node, n.Ref) and node.kind == "function" and node.decl in kernels:
                referenced.add(node.decl)
            if not isinstance(node, n.KernelLaunch) or node.kernel_decl not in kernels:
                continue
            fn = kernels[node.kernel_decl]
            if node.template_args or len(node.args) != len(fn.params):
                referenced.add(fn.decl)
                continue
            mine = seen.setdefault(fn.decl, {})
            for p, arg in zip(fn.params, node.args, strict=True):
                value = _constant(arg)
                if p.decl in mine and mine[p.decl] != value:
                    mine[p.decl] = None
                else:
                    mine.setdefault(p.decl, value)
    out: dict[str, dict[str, int]] = {}
    for decl, values in seen.items():
        if decl in referenced:
            continue
        fn = kernels[decl]
        assert fn.body is not None
        written = assigned_decls(fn.body)
        types = {p.decl: p.type for p in fn.params if not p.is_pointer and not p.is_reference}
        consts = {p: v for p, v in values.items()
                  if v is not None and p in types and p not in written
                  and is_integral(types[p]) and "bool" not in types[p]
                  and not (v < 0 and is_unsigned(types[p]))}
        if consts:
            out[decl] = consts
    return out


def specialise(fn: Function, consts: dict[str, int]) -> Function:
    """`fn` with its references to the given parameters carrying their constant."""
    assert fn.body is not None

    def change(node: n.Node) -> n.Node | None:
        if isinstance(node, n.Ref) and node.kind == "param" and node.decl in consts:
            return dataclasses.replace(node, const_value=consts[node.decl])
        return None

    body = replace_nodes(fn.body, change)
    assert isinstance(body, n.Compound)
    return dataclasses.replace(fn, body=body)


def with_launch_constants(unit: TranslationUnit) -> tuple[TranslationUnit, list[str]]:
    """A copy of `unit` whose kernels see their launch-constant parameters as constants,
    and guard-free kernels the block and grid of their launches (launchshape.py), and a note
    per kernel saying which (for --explain)."""
    from cudafuse.passes.vertical.kernel.launchshape import with_launch_shapes
    from cudafuse.passes.vertical.kernel.tileblock import with_tile_blocks

    unit, notes = _with_constants(unit)
    unit, shaped = with_launch_shapes(unit)
    unit, tiled = with_tile_blocks(unit)
    return unit, notes + shaped + tiled


def _with_constants(unit: TranslationUnit) -> tuple[TranslationUnit, list[str]]:
    found = launch_constants(unit)
    if not found:
        return unit, []
    names = {p.decl: p.name for f in unit.functions for p in f.params}
    notes = []
    functions = []
    for f in unit.functions:
        consts = found.get(f.decl)
        if consts:
            f = specialise(f, consts)
            shown = ", ".join(f"{names[d]} = {v}" for d, v in sorted(
                consts.items(), key=lambda kv: names[kv[0]]))
            notes.append(f"kernel '{f.name}' is launched with {shown} at every launch in the "
                         "file: analysed with those values")
        functions.append(f)
    return dataclasses.replace(unit, functions=functions), notes
