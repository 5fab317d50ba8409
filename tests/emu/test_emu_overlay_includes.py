"""The overlay's copies of a program's own headers (emu/overlay.py) include the files beside
them by absolute path, since the copy lies in another folder; but a file beside it that has
a rewritten copy of its own must be found through the search, or the original, unrewritten,
comes back (Rodinia's huffman scan.cu, included by the survey's wrapper, includes
scanLargeArray_kernel.cu and its `extern __shared__`: g++ failed with "conflicting
specifiers")."""

from __future__ import annotations

from pathlib import Path

from cudafuse.emu.overlay import overlay


def test_a_header_with_its_own_copy_is_not_included_by_absolute_path(tmp_path: Path) -> None:
    (tmp_path / "kernels.cu").write_text(
        "__global__ void k(unsigned *o) {\n  extern __shared__ unsigned s[];\n"
        "  s[threadIdx.x] = threadIdx.x;\n  o[threadIdx.x] = s[threadIdx.x];\n}\n")
    (tmp_path / "plain.h").write_text("#define WIDTH 4\n")
    (tmp_path / "scan.cu").write_text(
        '#include "kernels.cu"\n#include "plain.h"\n'
        "void run(unsigned *o) { k<<<1, WIDTH, 16>>>(o); }\n")
    (tmp_path / "main.cu").write_text('#include "scan.cu"\n')
    files = overlay(tmp_path / "main.cu", [str(tmp_path / n) for n in
                                           ("scan.cu", "kernels.cu", "plain.h")])
    assert set(files) == {"scan.cu", "kernels.cu"}
    scan = files["scan.cu"].decode()
    assert '#include "kernels.cu"' in scan  # its copy, through the search
    assert f'#include "{tmp_path / "plain.h"}"' in scan  # no copy: the original, absolute
    assert "extern __shared__" not in files["kernels.cu"].decode()
