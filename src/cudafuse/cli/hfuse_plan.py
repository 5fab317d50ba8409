"""`cudafuse hfuse-plan`: the candidates `--profile` would time, compiled (no GPU needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cudafuse.cli.group import guarded, main, nonempty, parse_options, print_diagnostics
from cudafuse.cli.hfuse import candidate_setup
from cudafuse.diagnostics import error
from cudafuse.frontend import ParseOptions
from cudafuse.outputs import OutputSet, cache_dir_ready

if TYPE_CHECKING:
    from cudafuse.profile.candidates import Candidate
    from cudafuse.profile.records import Record


@main.command("hfuse-plan")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False),
                callback=nonempty)
@click.option("--kernels", metavar="A,B", help="The two kernels, as for hfuse.")
@click.option("--block1", metavar="X[xY[xZ]]", help="As for hfuse (default: launch bounds).")
@click.option("--block2", metavar="X[xY[xZ]]", help="As for hfuse.")
@click.option("--split-step", default=128, show_default=True,
              help="Thread-count step for the parts whose block size may change.")
@click.option("--jobs", type=click.IntRange(min=0), default=0,
              help="Parallel nvcc runs (default: CPUs).")
@click.option("--report", "report_path", type=click.Path(),
              help="Write the candidates as JSON.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Results cache (default: as for --profile, ~/.cache/cudafuse/profile).")
@click.option("--no-cache", is_flag=True, help="Compile even if this plan is cached.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@parse_options
@guarded
def hfuse_plan(files: tuple[str, ...], kernels: str | None, block1: str | None,
               block2: str | None, split_step: int, jobs: int, report_path: str | None,
               cache_dir: str | None, no_cache: bool, quiet: bool,
               parse_opts: ParseOptions) -> None:
    """List the configurations `hfuse --profile` would measure for two kernels: thread
    splits (only parts with no block-size dependence change size) x register caps around
    HFuse's bound, and block mode; each emitted and compiled with nvcc for --arch, with its
    registers, static shared memory, spills and theoretical occupancy, or why it is skipped.
    Needs nvcc, no GPU. The result is cached like --profile's (--cache-dir, --no-cache)."""
    from cudafuse.profile.cache import ResultsCache
    from cudafuse.profile.compiled import compiled_records
    from cudafuse.profile.hfuse_profile import nvcc_build
    from cudafuse.profile.plancache import cached_plan, plan_key_inputs
    from cudafuse.profile.records import PRUNING
    from cudafuse.progress import Progress

    outs = OutputSet([*files, *parse_opts.forced_includes])
    outs.declare("--report", report_path)
    outs.check()
    if not no_cache:
        cache_dir_ready("--cache-dir", cache_dir)
    from cudafuse.passes.horizontal.inputs import resolve_inputs

    diagnostics: list = []
    try:
        inputs = resolve_inputs(files, kernels, block1, block2, parse_opts, diagnostics)
    finally:
        print_diagnostics(diagnostics)
    outs.add_inputs([i for r in inputs.results for i in r.unit.includes])
    outs.check()
    (k1, k2), shapes = inputs.refs, inputs.shapes
    from cudafuse.codegen.templates import DEDUCED

    deduced = [(ref, p.name) for ref in inputs.refs for p, a in ref.bindings if a == DEDUCED]
    if deduced:
        # Its code (and the fused kernel's) exists only where a caller instantiates it with
        # its functor, a lambda: ptxas has nothing to give figures for (as --regcap auto).
        ref, name = deduced[0]
        raise error(f"hfuse-plan compiles the kernels for ptxas' figures, but "
                    f"{ref.display} is a template over '{name}', the type of a functor its "
                    "launch deduces (a lambda): no file instantiates it, or the fused "
                    "kernel, for ptxas", ref.fn.name_span.file, ref.fn.name_span.line,
                    ref.fn.name_span.col, status=2)
    options, emit_config = candidate_setup(inputs, split_step)
    tunable = (options.tunable1, options.tunable2)

    def emit(c: Candidate) -> tuple[bytes, str]:
        return emit_config(c.mode, c)

    progress = Progress("hfuse-plan", quiet=quiet)
    # The candidates are compiled away from the inputs (as --profile's are): the inputs'
    # folders stay on the include path, for their relative includes (ATen's
    # UpSampleBilinear2d.cu: #include "UpSample.cuh").
    dirs = (*dict.fromkeys(str(Path(f).resolve().parent) for f in files),
            *parse_opts.include_dirs)
    # Everything that changes the plan (profile.plancache): the files parsed, includes too.
    texts = [Path(f).read_bytes() for f in dict.fromkeys(
        [*files, *parse_opts.forced_includes,
         *sorted({i for r in inputs.results for i in r.unit.includes})])]
    key = plan_key_inputs(sources=texts, options={
        "candidates": options.to_json(), "kernels": [k1.display, k2.display],
        "shapes": [str(shapes[0]), str(shapes[1])], "arch": parse_opts.arch,
        "include_dirs": list(parse_opts.include_dirs), "defines": list(parse_opts.defines),
        "extra_args": list(parse_opts.extra_args), "nvcc": nvcc_build(),
        "pruning": PRUNING})
    try:
        records, hit = cached_plan(
            None if no_cache else ResultsCache(cache_dir), key,
            lambda: compiled_records(options, emit, tuple(files), (k1.qualified, k2.qualified),
                                     parse_opts.arch, dirs,
                                     parse_opts.defines, jobs or None, progress=progress))
    finally:
        progress.end()  # an error's message starts a line of its own
    if hit is not None:
        progress.line(f"results from the cache, nothing compiled ({hit})")
    else:
        progress.close(f"{sum(1 for r in records if r.skip is None)} candidates listed")
    click.echo(f"{k1.display} ({shapes[0]}, {'tunable' if tunable[0] else 'keeps its size'}) "
               f"+ {k2.display} ({shapes[1]}, "
               f"{'tunable' if tunable[1] else 'keeps its size'}), {parse_opts.arch}:")
    for line in table(records):
        click.echo(line)
    if report_path:
        doc = {"kernels": [k1.display, k2.display], "arch": parse_opts.arch,
               "options": options.to_json(), "candidates": [r.to_json() for r in records]}
        outs.put(report_path, json.dumps(doc, indent=2) + "\n")
        outs.commit()


def table(records: list[Record]) -> list[str]:
    """The plan as text: a row per candidate, skipped ones with the reason. A register cap
    compiled to the same machine code as another candidate of its split (`same_as`) gets
    no row of its own: its twin's row names it, and a last line counts them."""
    merged: dict[str, list[str]] = {}
    for r in records:
        if r.same_as is not None:
            merged.setdefault(r.same_as, []).append(f"r{r.regcap}")
    lines = [f"  {'candidate':<24} {'regs':>4} {'smem':>6} {'spill':>5} {'blocks/SM':>9} "
             f"{'occupancy':>9}  limit / skipped (smem: static bytes)"]
    for r in records:
        if r.same_as is not None:
            continue
        if r.occupancy is None:
            lines.append(f"  {r.id:<24} {'-':>4} {'-':>6} {'-':>5} {'-':>9} {'-':>9}  "
                         f"{r.skip}")
            continue
        occ = r.occupancy
        also = f" (also {', '.join(merged[r.id])})" if r.id in merged else ""
        # A compiled candidate that is skipped all the same (it cannot launch, or spills
        # only) keeps its figures, then the reason.
        lines.append(f"  {r.id:<24} {r.registers:>4} {r.shared_bytes:>6} "
                     f"{(r.spill_stores or 0) + (r.spill_loads or 0):>5} "
                     f"{occ.blocks_per_sm:>9} {occ.fraction:>9.0%}  "
                     f"{r.skip if r.skip else occ.limit + also}")
    count = sum(len(v) for v in merged.values())
    if count:
        lines.append(f"  (also rN: {count} register cap(s) folded into the row of the "
                     "candidate whose machine code they compiled to; not timed by --profile; "
                     "--report lists them with same_as)")
    return lines
