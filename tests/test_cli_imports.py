"""The CLI keeps heavy imports out of start-up; the names it hard-codes stay in step."""

from __future__ import annotations

import subprocess
import sys


def test_backend_names_match_the_runtime() -> None:
    from cudafuse.cli_run import BACKEND_NAMES
    from cudafuse.runtime import BACKENDS

    assert tuple(BACKEND_NAMES) == tuple(BACKENDS)


def test_cli_start_up_does_not_import_numpy_or_networkx() -> None:
    code = ("import sys, cudafuse.cli; "
            "print(sorted(m for m in ('numpy', 'networkx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
