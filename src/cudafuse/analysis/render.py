"""Text and Graphviz renderings of the `analyze` report (see report.py for its shape)."""

from __future__ import annotations

from typing import Any


def _list(items: list[Any]) -> str:
    return ", ".join(str(i) for i in items) if items else "none"


def _ops(ops: list[dict[str, Any]]) -> str:
    return _list([f"{o['name']} (line {o['line']})" for o in ops])


def _param(p: dict[str, Any]) -> str:
    quals = [q for q in ("const", "restrict") if p[q]]
    text = f"    {p['name']}: {p['type']}"
    if p["access"] == "unknown":
        text += " [struct: accesses through its members not followed]"
    if p["pointer"]:
        access = {"r": "reads", "w": "writes", "rw": "reads+writes", "atomic": "atomic",
                  "": "unused"}[p["access"]]
        text += f" [{' '.join(quals + [access])}]" if quals else f" [{access}]"
    return text


def _load(c: dict[str, Any]) -> str:
    head = f"    {c['pointer']}: {c['class']}"
    if c["class"] == "other":
        return f"{head}: {c['reason']}"
    window = " ".join("(" + ",".join(str(v) for v in o) + ")" for o in c["window"])
    extent = " ".join(f"{d}[{e[0]},{e[1]}]" for d, e in c["extent"].items())
    border = " ".join(f"{d}={m}" + (f"({c['bounds'][d]})" if c["bounds"][d] else "")
                      for d, m in c["border"].items())
    layout = " ".join(f"{d}*{s}" for d, s in c["layout"].items())
    out = f"{head} layout {layout}"
    if c["class"] == "stencil":
        out += f" window {window} extent {extent} border {border}"
    elif c["class"] == "gather":  # offsets known only at run time, clamped into the image
        out += f" at run-time offsets, border {border}"
    return out


def _kernel(k: dict[str, Any]) -> list[str]:
    m = k["mapping"]
    where = f"line {k['line']}" + (f" of {k['file']}" if "file" in k else "")
    lines = [f"kernel {k['name']} ({where})", "  params:"]
    lines += [_param(p) for p in k["params"]] or ["    none"]
    lines.append(f"  builtins: {_list(k['builtins'])}")
    dims = m["dims"]
    kind = f"{len(dims)}D" if dims else "none"
    mapping = f"  mapping: {kind}"
    if m["variables"]:
        mapping += " " + ", ".join(f"{v['name']} = {v['value']}" for v in m["variables"])
    if m["grid_stride"]:
        mapping += " grid-stride " + ", ".join(f"{g['variable']} over {g['dim']}"
                                               for g in m["grid_stride"])
    if m["assumptions"]:
        mapping += " (assumes " + ", ".join(m["assumptions"]) + ")"
    lines.append(mapping)
    g = m["guard"]
    bounds = ", ".join(f"{d} < {b}" for d, b in g["bounds"].items())
    if g["text"] or bounds:
        lines.append(f"  guard: {g['text'] or '?'} ({g['form'] or '?'})"
                     + (f" -> {bounds}" if bounds else ""))
    else:
        lines.append("  guard: none")
    shared = [f"{s['name']}: {s['type']} "
              + ("dynamic" if s["dynamic"] else f"{s['bytes']} bytes" if s["bytes"] is not None
                 else "size unknown") + (f" (via {s['via']})" if s.get("via") else "")
              for s in k["shared"]]
    lines.append(f"  shared: {_list(shared)}")
    lines.append(f"  barriers: {_ops(k['barriers'])}")
    lines.append(f"  warp ops: {_ops(k['warp_ops'])}")
    lines.append(f"  atomics: {_ops(k['atomics'])}")
    if k["textures"]:  # rare: the line is left out when there are none
        lines.append(f"  textures/surfaces: {_ops(k['textures'])}")
    lines.append(f"  early returns: {_list([f'line {n}' for n in k['early_returns']])}")
    lines.append(f"  inline asm: {_list([f'line {n}' for n in k['inline_asm']])}")
    lines.append(f"  calls: {_list(k['calls'])}")
    lines.append(f"  constants: {_list(k['constants'])}")
    lines.append("  loads:")
    lines += [_load(c) for c in k["loads"]] or ["    none"]
    lines.append("  stores:")
    lines += [f"    {c['pointer']}: " + (
        "point layout " + " ".join(f"{d}*{s}" for d, s in c["layout"].items()) if c["point"]
        else f"other: {c['reason']}") for c in k["stores"]] or ["    none"]
    return lines


def _host(h: dict[str, Any]) -> list[str]:
    lines = [f"host {h['name']} (line {h['line']})"]
    for la in h["launches"]:
        cfg = ", ".join(x for x in (la["grid"], la["block"], la["shared"], la["stream"])
                        if x is not None)
        name = la["kernel"] + la["template_args"]
        loops = la.get("loops") or []
        inside = f", in the loop at line {loops[-1]}" if loops else ""
        lines.append(f"  launch {la['index']}: {name}<<<{cfg}>>> (line {la['line']}{inside})")
        for a in la["args"]:
            extra = f" [{a['buffer']}: {a['access'] or '-'}]" if a["buffer"] else ""
            lines.append(f"    {a['param'] or '?'} = {a['expr']}{extra}")
    lines.append("  edges:")
    lines += [f"    {e['src']} -> {e['dst']} {e['kind']} {e['buffer']}" for e in h["edges"]] \
        or ["    none"]
    if h.get("loops"):
        lines.append("  loops:")
        lines += [f"    {lp['kind']} loop at line {lp['line']}: launches "
                  f"{_list(lp['launches'])}" for lp in h["loops"]]
        lines.append("  carried edges (iteration t to t + 1):")
        lines += [f"    {e['src']} -> {e['dst']} {e['kind']} {e['buffer']} (loop at line "
                  f"{e['loop']})" for e in h["carried_edges"]] or ["    none"]
    lines.append(f"  inputs: {_list(h['inputs'])}")
    lines.append(f"  outputs: {_list(h['outputs'])}")
    lines.append(f"  temporaries: {_list(h['temporaries'])}")
    return lines


def render_text(report: dict[str, Any]) -> str:
    sections = [_kernel(k) for k in report["kernels"]]
    sections += [_host(h) for h in report["host_functions"]]
    return "\n".join("\n".join(s) for s in sections) + ("\n" if sections else "")


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(report: dict[str, Any]) -> str:
    """One cluster per host function, one inside it per loop holding launches; raw edges
    solid, war/waw dashed; loop-carried raw edges (iteration t to t + 1) dashed and blue,
    labelled `(carried)`; labels are buffers."""
    out = ["digraph pipelines {", "  node [shape=box];"]
    for i, h in enumerate(report["host_functions"]):
        out.append(f"  subgraph cluster_{i} {{")
        out.append(f"    label={_q(h['name'])};")
        loops = {lp["line"]: lp for lp in h.get("loops", [])}
        for la in h["launches"]:
            label = _q(f"{la['index']}: {la['kernel']}")
            out.append(f"    h{i}_{la['index']} [label={label}];")
        for lp in loops.values():
            members = " ".join(f"h{i}_{x};" for x in lp["launches"])
            out.append(f"    subgraph cluster_{i}_loop{lp['line']} {{ style=dashed; "
                       f"label={_q(lp['kind'] + ' loop, line ' + str(lp['line']))}; "
                       f"{members} }}")
        for e in h["edges"]:
            style = "" if e["kind"] == "raw" else ", style=dashed"
            label = e["buffer"] if e["kind"] == "raw" else f"{e['buffer']} ({e['kind']})"
            out.append(f"    h{i}_{e['src']} -> h{i}_{e['dst']} [label={_q(label)}{style}];")
        for e in h.get("carried_edges", []):
            if e["kind"] == "raw":
                label = _q(f"{e['buffer']} (carried)")
                out.append(f"    h{i}_{e['src']} -> h{i}_{e['dst']} [label={label}, "
                           "style=dashed, color=blue, constraint=false];")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
