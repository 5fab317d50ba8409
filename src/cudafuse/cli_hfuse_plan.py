"""`cudafuse hfuse-plan`: the candidates `--profile` would time, compiled (no GPU needed)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from cudafuse.cli import guarded, main, parse_options
from cudafuse.cli_hfuse import candidate_setup, resolve_inputs
from cudafuse.frontend import ParseOptions
from cudafuse.outputs import OutputSet

if TYPE_CHECKING:
    from cudafuse.profile.candidates import Candidate


@main.command("hfuse-plan")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--kernels", metavar="A,B", help="The two kernels, as for hfuse.")
@click.option("--block1", metavar="X[xY[xZ]]", help="As for hfuse (default: launch bounds).")
@click.option("--block2", metavar="X[xY[xZ]]", help="As for hfuse.")
@click.option("--split-step", default=128, show_default=True,
              help="Thread-count step for the parts whose block size may change.")
@click.option("--jobs", type=click.IntRange(min=0), default=0,
              help="Parallel nvcc runs (default: CPUs).")
@click.option("--report", "report_path", type=click.Path(),
              help="Write the candidates as JSON.")
@parse_options
@guarded
def hfuse_plan(files: tuple[str, ...], kernels: str | None, block1: str | None,
               block2: str | None, split_step: int, jobs: int, report_path: str | None,
               parse_opts: ParseOptions) -> None:
    """List the configurations `hfuse --profile` would measure for two kernels: thread
    splits (only parts with no block-size dependence change size) x register caps around
    HFuse's bound, and block mode; each emitted and compiled with nvcc for --arch, with its
    registers, static shared memory, spills and theoretical occupancy, or why it is skipped.
    Needs nvcc, no GPU."""
    from cudafuse.profile.compiled import compiled_records

    outs = OutputSet([*files, *parse_opts.forced_includes])
    outs.declare("--report", report_path)
    outs.check()
    inputs = resolve_inputs(files, kernels, block1, block2, parse_opts)
    outs.add_inputs([i for r in inputs.results for i in r.unit.includes])
    outs.check()
    (k1, k2), shapes = inputs.refs, inputs.shapes
    options, emit_config = candidate_setup(inputs, split_step)
    tunable = (options.tunable1, options.tunable2)

    def emit(c: Candidate) -> tuple[bytes, str]:
        return emit_config(c.mode, c)

    records = compiled_records(options, emit, tuple(files), (k1.display, k2.display),
                               parse_opts.arch, parse_opts.include_dirs, parse_opts.defines,
                               jobs or None)
    click.echo(f"{k1.display} ({shapes[0]}, {'tunable' if tunable[0] else 'keeps its size'}) "
               f"+ {k2.display} ({shapes[1]}, "
               f"{'tunable' if tunable[1] else 'keeps its size'}), {parse_opts.arch}:")
    click.echo(f"  {'candidate':<24} {'regs':>4} {'smem':>6} {'spill':>5} {'blocks/SM':>9} "
               f"{'occupancy':>9}  limit / skipped (smem: static bytes)")
    for r in records:
        if r.occupancy is None or r.skip:
            click.echo(f"  {r.id:<24} {'-':>4} {'-':>6} {'-':>5} {'-':>9} {'-':>9}  {r.skip}")
            continue
        occ = r.occupancy
        click.echo(f"  {r.id:<24} {r.registers:>4} {r.shared_bytes:>6} "
                   f"{(r.spill_stores or 0) + (r.spill_loads or 0):>5} "
                   f"{occ.blocks_per_sm:>9} {occ.fraction:>9.0%}  {occ.limit}")
    if report_path:
        doc = {"kernels": [k1.display, k2.display], "arch": parse_opts.arch,
               "options": options.to_json(), "candidates": [r.to_json() for r in records]}
        outs.put(report_path, json.dumps(doc, indent=2) + "\n")
        outs.commit()
