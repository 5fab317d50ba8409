"""Paths shared by the emulator tests (a plain module: conftest.py cannot be imported)."""

from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"


def assert_nvcc_compiles(program: Path, tmp: Path) -> None:
    """nvcc (on PATH) compiles `program` for sm_90: a test's own program is valid CUDA."""
    import shutil  # noqa: PLC0415 - only the slow nvcc checks need these
    import subprocess  # noqa: PLC0415

    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    res = subprocess.run([nvcc, "-arch=sm_90", "-c", str(program), "-o", str(tmp / "p.o")],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
