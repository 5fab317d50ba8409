"""`cudafuse analyze`: what the front end and analyses know about a .cu file."""

from __future__ import annotations

import json
from dataclasses import replace

import click

from cudafuse.analysis.render import render_dot, render_text
from cudafuse.analysis.report import build_report
from cudafuse.cli.group import guarded, main, nonempty, parse_options, print_diagnostics
from cudafuse.frontend import ParseOptions, parse_file
from cudafuse.progress import DELAY, Progress, reporting


@main.command(context_settings={"ignore_unknown_options": False})
@click.argument("file", type=click.Path(dir_okay=False), callback=nonempty)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "dot"]), default="text",
              show_default=True, help="Output format (json is stable, see docs/analyze-json.md).")
@click.argument("clang_args", nargs=-1, type=click.UNPROCESSED)
@parse_options
@guarded
def analyze(file: str, fmt: str, parse_opts: ParseOptions) -> None:
    """Describe every kernel and host-side launch pipeline in FILE.

    Extra clang arguments may follow `--`.
    """
    with reporting(Progress("analyze", delay=DELAY)) as progress:  # (shown if it is long)
        progress.start("parsing", 1)
        result = parse_file(file, replace(parse_opts, included_kernels=True))
        progress.step()
        progress.end()  # (a terminal's progress line, before the diagnostics)
        print_diagnostics(result.diagnostics)
        report = build_report(result.unit)
    if fmt == "json":
        click.echo(json.dumps(report, indent=2))
    elif fmt == "dot":
        click.echo(render_dot(report), nl=False)
    else:
        click.echo(render_text(report), nl=False)
