"""Long runs are never silent: `cudafuse.progress` on a terminal and without one, and the
named phases of `hfuse-plan`, `hfuse --profile` and `fuse --profile` on a stderr that is
not a terminal (as under make or CI)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from cudafuse.cli import main
from cudafuse.profile import hfuse_profile
from cudafuse.progress import Progress

PAIR = Path(__file__).parent / "pair"
SAMPLES = Path(__file__).resolve().parents[2] / "samples"
# `tool: phase [done/total] detail`
LINE = re.compile(r"^(hfuse-plan|profile): ([a-z ]+) \[(\d+)/(\d+)\]")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_name_the_phase_and_are_throttled() -> None:
    out, clock = io.StringIO(), Clock()
    p = Progress("profile", stream=out, tty=False, interval=5.0, clock=clock)
    p.start("building", 3)
    for i in range(3):
        clock.now += 1.0
        p.step(f"b{i}")
    p.start("verifying and timing", 10)
    for i in range(10):
        clock.now += 2.0  # a line at most every 5 s, and always the last step
        p.step(f"v{i}")
    p.close("3 of 10 variants timed")
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines == [
        "profile: building [0/3]",
        "profile: building [3/3] b2",
        "profile: verifying and timing [0/10]",
        "profile: verifying and timing [3/10] v2",
        "profile: verifying and timing [6/10] v5",
        "profile: verifying and timing [9/10] v8",
        "profile: verifying and timing [10/10] v9",
        "profile: done: building 3/3, verifying and timing 10/10; 3 of 10 variants timed",
    ]


def test_a_terminal_gets_one_rewritten_line_per_phase() -> None:
    out = io.StringIO()
    p = Progress("hfuse-plan", stream=out, tty=True)
    p.start("compiling candidates", 2)
    p.step("a")
    p.step("b")
    p.close()
    text = out.getvalue()
    assert text == ("\r\033[Khfuse-plan: compiling candidates [0/2]"
                    "\r\033[Khfuse-plan: compiling candidates [1/2] a"
                    "\r\033[Khfuse-plan: compiling candidates [2/2] b\n"
                    "hfuse-plan: done: compiling candidates 2/2\n")


def test_quiet_and_the_environment_silence_it(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    p = Progress("profile", stream=out, tty=False, quiet=True)
    p.start("building", 1)
    p.step()
    p.close("done")
    assert out.getvalue() == "" and p.summary() == "building 1/1"
    monkeypatch.setenv("CUDAFUSE_PROGRESS", "off")
    p = Progress("profile", stream=out, tty=True)
    p.start("building", 1)
    p.step()
    assert out.getvalue() == ""
    monkeypatch.setenv("CUDAFUSE_PROGRESS", "plain")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    Progress("profile", stream=term).start("building", 1)
    assert term.getvalue() == "profile: building [0/1]\n"


def _phases(stderr: str, tool: str) -> dict[str, list[tuple[int, int]]]:
    """Counters by phase, from the plain lines of `tool`; every counter line must be one."""
    out: dict[str, list[tuple[int, int]]] = {}
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m and m.group(1) == tool:
            out.setdefault(m.group(2), []).append((int(m.group(3)), int(m.group(4))))
    assert "\r" not in stderr
    assert not re.search(r"^\S*\s*\[\d+/\d+\]", stderr, re.M), "an unlabelled counter"
    return out


def _summary(stderr: str, tool: str) -> dict[str, tuple[int, int]]:
    line = next(ln for ln in stderr.splitlines() if ln.startswith(f"{tool}: done: "))
    body = line.removeprefix(f"{tool}: done: ").split("; ")[0]
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"([a-z ]+?) (\d+)/(\d+)(?:, |$)", body)}


def _agree(stderr: str, tool: str, want: set[str]) -> None:
    """The named phases ran, each counted to its total, and the summary says the same."""
    phases = _phases(stderr, tool)
    assert want <= set(phases), phases
    last = {name: counts[-1] for name, counts in phases.items()}
    assert all(done == total for done, total in last.values()), last
    assert _summary(stderr, tool) == last


def test_hfuse_profile_progress_without_a_terminal(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hfuse_profile, "have_nvcc", lambda: False)  # fast: no caps
    args = ["hfuse", str(PAIR / "bump.cu"), str(PAIR / "scale.cu"), "--profile", "--spec",
            str(PAIR / "pair.toml"), "--backend", "emu", "-o", str(tmp_path / "out.cu"),
            "--cache-dir", str(tmp_path / "cache")]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _agree(res.stderr, "profile", {"building", "verifying and timing"})
    again = CliRunner().invoke(main, args, catch_exceptions=False)
    assert "profile: results from the cache, nothing measured" in again.stderr
    assert not _phases(again.stderr, "profile")


def test_fuse_profile_progress_without_a_terminal(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, [
        "fuse", str(SAMPLES / "sobel.cu"), "-o", str(tmp_path / "f.cu"), "--profile",
        "--spec", str(SAMPLES / "sobel.toml"), "--backend", "emu", "--no-cache"],
        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _agree(res.stderr, "profile", {"building", "verifying and timing"})
    total = _summary(res.stderr, "profile")["verifying and timing"][1]
    assert re.search(rf"profile: done: .*; \d+ of {total} variants timed", res.stderr)


@pytest.mark.nvcc
def test_hfuse_plan_progress_and_cache(tmp_path: Path) -> None:
    programs = Path(__file__).parents[1] / "hfuse" / "programs"
    cache = tmp_path / "cache"
    args = ["hfuse-plan", str(programs / "pairs.cu"), "--kernels",
            "block_sum_static,reverse_static", "--block1", "256", "--block2", "256",
            "--cache-dir", str(cache)]
    first = CliRunner().invoke(main, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    _agree(first.stderr, "hfuse-plan", {"compiling the native kernels", "emitting candidates",
                                        "compiling candidates"})
    entries = list(cache.glob("*.json"))
    assert len(entries) == 1
    # Same inputs and options: the answer comes from the cache, nothing is compiled.
    second = CliRunner().invoke(main, args, catch_exceptions=False)
    assert second.exit_code == 0, second.output
    assert second.stdout == first.stdout
    assert f"results from the cache, nothing compiled ({entries[0]})" in second.stderr
    assert not _phases(second.stderr, "hfuse-plan")
    # Another option is another plan; --no-cache compiles again; --quiet says nothing.
    other = CliRunner().invoke(main, [*args, "--split-step", "256", "-q"],
                               catch_exceptions=False)
    assert other.exit_code == 0 and other.stderr == ""
    assert len(list(cache.glob("*.json"))) == 2
    fresh = CliRunner().invoke(main, [*args, "--no-cache"], catch_exceptions=False)
    assert fresh.stdout == first.stdout and "compiling candidates" in fresh.stderr


def test_an_interrupted_terminal_line_is_ended_once() -> None:
    # profile_pair / profile_fuse / hfuse-plan call end() on their way out, error or not,
    # so an error message starts a line of its own.
    out = io.StringIO()
    p = Progress("profile", stream=out, tty=True)
    p.start("building", 3)
    p.step("a")
    p.end()
    p.end()
    assert out.getvalue().endswith("[1/3] a\n") and not out.getvalue().endswith("\n\n")
