"""Check that a change left `cudafuse analyze --format json` byte-identical (issue 27's rule
for work on the tool's own cost).

Runs `analyze --format json` (its output, diagnostics and exit status) of every
tests/**/*.cu and of bench_analyze.py's generated 5,000- and 20,000-line files with the
package of the working tree and with the package of a git revision (exported to a
temporary directory), and prints the inputs whose outputs differ. Exit status 1 when any
does. The inputs are the revision's (its tests/ tree), so that both sides read the same
files whatever else changes meanwhile.

    .venv/bin/python benchmarks/same_analyze.py                 # the tree against HEAD
    .venv/bin/python benchmarks/same_analyze.py --base 2de6bc1  # against a revision
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run once per package: every input analysed in one process (a process per file would
# cost start-up 200 times), each output written to OUT/<index>.
WORKER = r"""
import os, sys
from pathlib import Path
os.environ["CUDAFUSE_PROGRESS_DELAY"] = "1000000"  # progress lines depend on the clock
from click.testing import CliRunner
from cudafuse.cli import main
out = Path(sys.argv[1])
runner = CliRunner()
for i, f in enumerate(sys.argv[2:]):
    r = runner.invoke(main, ["analyze", f, "--format", "json"])
    text = f"exit {r.exit_code}\n{r.output}"
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        text += f"\nexception {type(r.exception).__name__}: {r.exception}"
    (out / str(i)).write_text(text)
"""


def run(src: Path, files: list[str], out: Path, cwd: Path) -> None:
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=str(src))
    subprocess.run([sys.executable, "-c", WORKER, str(out), *files], env=env, cwd=cwd,
                   check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="the git revision to compare with")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_analyze import generate

    with tempfile.TemporaryDirectory(prefix="cudafuse-same-") as tmp_name:
        tmp = Path(tmp_name)
        base = tmp / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        files = sorted(str(p) for p in (base / "tests").rglob("*.cu"))
        for lines in (5000, 20000):
            gen = tmp / f"generated_{lines}.cu"
            gen.write_text(generate(lines))
            files.append(str(gen))
        run(base / "src", files, tmp / "before", tmp)
        run(ROOT / "src", files, tmp / "after", tmp)
        differ = [f for i, f in enumerate(files) if (tmp / "before" / str(i)).read_bytes()
                  != (tmp / "after" / str(i)).read_bytes()]
    for f in differ:
        print(f"differs: {Path(f).name if 'generated_' in f else f.split('/base/', 1)[1]}")
    print(f"{len(files) - len(differ)} of {len(files)} inputs give the same analyze output "
          f"as {args.base}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
