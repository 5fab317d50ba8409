"""The `analyze` report: a JSON-able dict built from a TranslationUnit (schema in
docs/analyze-json.md). Keys are inserted in a fixed order and lists are in source order, so
`json.dumps` of the report is deterministic."""

from __future__ import annotations

from typing import Any

from cudafuse.analysis.callgraph import CallGraph
from cudafuse.analysis.dataflow import Pipeline, analyze_host
from cudafuse.analysis.kernel_facts import KernelFacts, analyze_kernel
from cudafuse.collector import paused
from cudafuse.ir.program import TranslationUnit
from cudafuse.progress import active, phase_start, phase_step

SCHEMA = 1


def analyze_unit(unit: TranslationUnit) -> tuple[list[KernelFacts], list[Pipeline]]:
    """Facts for every kernel and the pipeline of every host function that launches one."""
    graph = CallGraph(unit)
    progress = active()  # (a command's, shown once its run takes a while)
    kernels, hosts = unit.kernels, unit.hosts()
    phase_start(progress, "analysing kernels", len(kernels))
    facts = {}
    for k in kernels:
        facts[k.decl] = analyze_kernel(unit, k, graph)
        phase_step(progress)
    phase_start(progress, "analysing host functions", len(hosts))
    pipes = []
    for f in hosts:
        pipes.append(analyze_host(unit, f, facts))
        phase_step(progress)
    return list(facts.values()), pipes


def build_report(unit: TranslationUnit) -> dict[str, Any]:
    # The facts and the report stay alive together: nothing for the collector to find.
    with paused():
        kernels, pipes = analyze_unit(unit)
        dicts = [kernel_dict(k) for k in kernels]
        for d, fn in zip(dicts, unit.kernels, strict=True):
            if fn.span.file != unit.path:  # defined in an included file (its "line" is there)
                d["file"] = fn.span.file
        return {"schema": SCHEMA, "file": unit.path,
                "kernels": dicts,
                "host_functions": [pipeline_dict(p) for p in pipes]}


def _access(p: Any) -> str:
    if p.atomic:
        return "atomic"
    return ("r" if p.reads else "") + ("w" if p.writes else "")


def kernel_dict(k: KernelFacts) -> dict[str, Any]:
    m = k.mapping
    return {
        "name": k.name,
        "line": k.line,
        "params": [{"name": p.name, "type": p.type, "pointer": p.is_pointer,
                    "pointee": p.pointee, "const": p.const, "restrict": p.restrict,
                    "access": _access(p) if p.is_pointer else "unknown" if p.aggregate
                    else ""} for p in k.params],
        "builtins": list(k.builtins),
        "mapping": {
            "dims": list(m.dims),
            "variables": [{"name": a, "value": v} for a, v in m.variables],
            "grid_stride": [{"variable": a, "dim": d} for a, d in m.grid_stride],
            "guard": {"text": m.guard_text, "form": m.guard_form,
                      "bounds": {d: b for d, b in m.guard}},
            "assumptions": list(m.assumptions),
        },
        "shared": [{"name": s.name, "type": s.elem_type, "bytes": s.size_bytes,
                    "dynamic": s.dynamic, "line": s.line, "via": s.via or None}
                   for s in k.shared],
        "barriers": [{"name": o.name, "line": o.line} for o in k.barriers],
        "warp_ops": [{"name": o.name, "line": o.line} for o in k.warp_ops],
        "atomics": [{"name": o.name, "line": o.line} for o in k.atomics],
        "textures": [{"name": o.name, "line": o.line} for o in k.textures],
        "early_returns": list(k.early_returns),
        "inline_asm": list(k.asm),
        "calls": list(k.calls),
        "constants": list(k.constants),
        "loads": [{"pointer": c.pointer, "class": c.kind, "reason": c.reason,
                   "dims": list(c.dims), "window": [list(o) for o in c.window],
                   "extent": {d: list(e) for d, e in zip(c.dims, c.extent, strict=True)},
                   "border": dict(zip(c.dims, c.border, strict=True)),
                   "bounds": dict(zip(c.dims, c.bounds, strict=True)),
                   "layout": dict(zip(c.dims, c.layout, strict=True)),
                   "lines": list(c.lines)} for c in k.loads],
        "stores": [{"pointer": c.pointer, "point": c.point, "reason": c.reason,
                    "layout": dict(zip(k.mapping.dims, c.layout, strict=False))
                    if c.point else {}, "lines": list(c.lines)} for c in k.stores],
    }


def pipeline_dict(p: Pipeline) -> dict[str, Any]:
    return {
        "name": p.function,
        "line": p.line,
        "launches": [{"index": la.index, "kernel": la.kernel,
                      "template_args": la.template_args, "line": la.line,
                      "grid": la.grid, "block": la.block, "shared": la.shared,
                      "stream": la.stream, "resolved": la.resolved, "loops": list(la.loops),
                      "args": [{"param": a.param, "expr": a.expr, "buffer": a.buffer or None,
                                "access": a.access} for a in la.args]}
                     for la in p.launches],
        "edges": [{"src": d.src, "dst": d.dst, "kind": d.kind, "buffer": d.buffer}
                  for d in p.deps],
        "inputs": list(p.inputs),
        "outputs": list(p.outputs),
        "temporaries": list(p.temporaries),
        "loops": [{"line": lp.line, "kind": lp.kind, "launches": list(lp.launches),
                   "parent": lp.parent} for lp in p.loops],
        "carried_edges": [{"src": d.src, "dst": d.dst, "kind": d.kind, "buffer": d.buffer,
                           "loop": d.loop} for d in p.carried],
    }
