"""Human-readable renderings of a fusion result: --explain text, plan text, Graphviz."""

from __future__ import annotations

from cudafuse.passes.vertical.driver import FuseResult, SequencePlan
from cudafuse.passes.vertical.plan.resources import GroupResources, KernelFigures
from cudafuse.passes.vertical.result import EdgeNote, LaunchNote


def explain_text(result: FuseResult) -> str:
    lines = []
    units = {p.host: p.unit_short for p in result.plans}
    for plan in result.plans:
        where = f" in {plan.where}" if plan.where.startswith("the body of the") or \
            plan.where.startswith(("the if", "the else", "the block")) else ""
        lines.append(f"{plan.host}: {len(plan.kernels)} launches{where}: "
                     f"{', '.join(plan.kernels)}")
        # The unit once per sequence, in full; the figures after it say it short.
        lines.append(f"  objective unit: {plan.objective_unit} (edge weights: the paper's "
                     "Eq. 1, w_e = max(pair benefit, 1) summed inside groups, same unit)")
        for part in plan.partitions:
            groups = " | ".join("{" + ", ".join(plan.kernels[i] for i in sorted(g)) + "}"
                                for g in part.groups)
            mark = " (chosen)" if part is plan.chosen else ""
            lines.append(f"  partition {part.strategy}{mark}: objective {part.objective:.4g} "
                         f"{plan.unit_short}, edge weights {part.edge_objective:.4g} "
                         f"{plan.unit_short}: {groups}")
            if part.search:
                gap = "" if part.gap is None else f" (gap {part.gap:.4g} {plan.unit_short})"
                lines.append(f"    search: {part.search}{gap}")
        for g in plan.groups:
            lines.append(f"  {g.name}: {', '.join(g.kernels)} (estimated benefit "
                         f"{g.benefit:.4g} {plan.unit_short})")
            if g.stored:
                why = "; ".join(f"{b}: {g.stored_why[b]}" for b in g.stored
                                if b in g.stored_why)
                lines.append(f"    still stores {', '.join(g.stored)} (read outside the group "
                             "or after the pipeline" + (f"; {why})" if why else ")"))
            if g.untouched:
                lines.append(f"    no longer writes {', '.join(g.untouched)}: the buffer(s) "
                             "may be dropped")
            if g.resources is not None:
                lines += resource_lines(g.resources)
            if g.launch_block:
                bx, by = g.launch_block
                chosen = g.resources is not None and g.resources.block == g.launch_block
                lines.append(f"    launched with a {bx}x{by} block ("
                             + ("chosen by the plan for occupancy" if chosen else "--block")
                             + "), its grid covering the image")
        for u in plan.left_unfused:
            lines.append(f"  group {{{', '.join(u.kernels)}}} (chosen) left unfused by code "
                         f"generation: {u.why}; its launches stay as written")
        if plan.traffic is not None:
            lines.append(traffic_line(plan))
        for s in plan.siblings:
            figure = "" if s.benefit is None or s.fused else \
                f"; benefit if fused: {s.benefit:.4g} cycles"
            shared = f"; shared input(s) {', '.join(s.shared_inputs)} read once" \
                if s.shared_inputs else ""
            lines.append(f"  siblings {s.first} + {s.second} (launches {s.first_index}, "
                         f"{s.second_index}): {s.why}{shared}{figure}")
        if plan.siblings_blocked:
            lines.append(f"  siblings: {plan.siblings_blocked} other pair(s) of unfused "
                         "launches not tried: a launch between each pair depends on the "
                         "first and the second on a launch between, so the fused launch "
                         "could stand at neither place")
    for e in result.edges:
        figure = "" if e.benefit is None else \
            f"; benefit if fused alone: {e.benefit:.4g} {units.get(e.host, '')}".rstrip()
        lines.append(f"  edge {e.src} -> {e.dst} [{', '.join(e.buffers)}] in {e.host}: "
                     f"{e.why}{figure}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    lines += [f"  assumed: {a}" for a in result.assumed]
    lines += launch_lines(result)
    return "\n".join(lines) + "\n"


def resource_lines(res: GroupResources) -> list[str]:
    """The fused kernel next to the kernels it replaces: registers, spills, shared memory,
    occupancy (ptxas or estimated, said once per line), redundant work, DRAM bytes."""
    def src(f: KernelFigures) -> str:
        return "" if f.source == "ptxas" else f" [{f.source}]"

    f = res.fused
    out = [f"    fused kernel: {f.short()} at {f.threads} threads{src(f)}"]
    members = "; ".join(f"{m.name} {m.short()}" for m in res.members)
    estimated = {m.source for m in res.members if m.source != "ptxas"}
    out.append(f"    replaces: {members}" + (f" [{', '.join(sorted(estimated))}]"
                                            if estimated else ""))
    work = "" if res.redundant_work is None else f"redundant work x{res.redundant_work:.2f}"
    before, after = res.dram_bytes
    dram = "" if before is None else f"DRAM bytes per element {before} -> {after}"
    figures = ", ".join(x for x in (work, dram) if x)
    out.append(f"    {figures + '; ' if figures else ''}{res.note}")
    return out


def launch_lines(result: FuseResult) -> list[str]:
    """Per host function, every launch: its sequence and group, or why it is in none.
    Host functions with a single launch (nothing to fuse it with) are left out."""
    lines: list[str] = []
    by_host: dict[str, list[LaunchNote]] = {}  # (in order: a scan per host is hosts x launches)
    for la in result.launches:
        by_host.setdefault(la.host, []).append(la)
    for host, mine in by_host.items():
        if len(mine) < 2:
            continue
        lines.append(f"launches of {host}:")
        for la in mine:
            head = f"  {la.index}: {la.kernel} (line {la.line})"
            if la.sequence is None:
                lines.append(f"{head}: in no sequence: {la.why}")
                continue
            plan = result.plans[la.sequence]
            fate = f"fused into {la.group}" if la.group else "not fused"
            lines.append(f"{head}: sequence {la.sequence} ({plan.where}, "
                         f"{len(plan.kernels)} launches), {fate}")
    return lines


def traffic_line(plan: SequencePlan) -> str:
    """`pipeline H: DRAM bytes per output element A -> B (minimum C); redundant work xR`:
    traffic figures (fusion.traffic), not a prediction of run time."""
    t = plan.traffic
    assert t is not None
    if t.original is None:
        bytes_ = f"DRAM bytes per output element not computed ({t.unknown})"
    else:
        bytes_ = (f"DRAM bytes per output element {t.original} -> {t.fused} "
                  f"(minimum {t.minimum})")
    return f"  pipeline {plan.host}: {bytes_}; redundant work x{t.redundant_work:.2f}"


def dot_text(result: FuseResult) -> str:
    out = ["digraph cudafuse {", "  rankdir=TB;", "  node [shape=box];"]
    edges: dict[str, list[EdgeNote]] = {}  # by host, in order
    for e in result.edges:
        edges.setdefault(e.host, []).append(e)
    for pi, plan in enumerate(result.plans):
        out.append(f'  subgraph cluster_{pi} {{ label="{plan.host}";')
        for gi, g in enumerate(plan.chosen.groups):
            if len(g) > 1:
                out.append(f'    subgraph cluster_{pi}_{gi} {{ style=filled; color=lightgrey; '
                           f'label="fused";')
            for v in sorted(g):
                li = plan.launch_indices[v]
                out.append(f'      n{pi}_{li} [label="{li}: {plan.kernels[v]}"];')
            if len(g) > 1:
                out.append("    }")
        launches = set(plan.launch_indices)
        for e in edges.get(plan.host, ()):
            if e.src_index not in launches:
                continue
            style = "" if e.fused else ", style=dashed"
            out.append(f'    n{pi}_{e.src_index} -> n{pi}_{e.dst_index} '
                       f'[label="{", ".join(e.buffers)}"{style}];')
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
