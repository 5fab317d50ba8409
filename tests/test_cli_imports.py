"""The CLI keeps heavy imports out of start-up; the names it hard-codes stay in step."""

from __future__ import annotations

import subprocess
import sys


def test_backend_names_match_the_runtime() -> None:
    from cudafuse.cli.run import BACKEND_NAMES
    from cudafuse.runtime import BACKENDS

    assert tuple(BACKEND_NAMES) == tuple(BACKENDS)


def test_cli_start_up_does_not_import_numpy_or_networkx() -> None:
    code = ("import sys, cudafuse.cli; "
            "print(sorted(m for m in ('numpy', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_subcommand_modules_load_on_demand() -> None:
    # Each name the lazy group lists is the command its module registers, and analyze
    # does not import the modules of the other commands (compiler_flags is the group's own
    # option parsing, shared by every command).
    code = ("import sys; from cudafuse.cli.group import LazyGroup, main; import click; "
            "ctx = click.Context(main); "
            "cmds = lambda: sorted(m for m in sys.modules if m.startswith('cudafuse.cli.') "
            "and m not in ('cudafuse.cli.group', 'cudafuse.cli.compiler_flags')); "
            "before = cmds(); "
            "main.get_command(ctx, 'analyze'); "
            "after = cmds(); "
            "ok = all(main.get_command(ctx, n).name == n for n in LazyGroup.MODULES); "
            "print(before, after, ok)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[] ['cudafuse.cli.analyze'] True"
