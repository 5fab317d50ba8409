"""A source file that starts with a UTF-8 byte order mark (as Visual Studio saves .cu files):
nvcc compiles it; the emulator's build, which puts its own lines before the program's text,
must not carry the mark into the middle of the file, where g++ calls it a stray character
(issue 31: a third-party stream example did not build)."""

from __future__ import annotations

from cudafuse.emu.rewrite import rewrite
from cudafuse.frontend.parse import parse_file

_BOM = "\ufeff"


def test_the_mark_is_dropped_and_the_text_kept(tmp_path):
    src = tmp_path / "bom.cu"
    body = ("#include <cstdio>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
            "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return 0; }\n")
    src.write_bytes((_BOM + body).encode())
    text = rewrite(parse_file(str(src)).unit).text
    assert not text.startswith(_BOM) and _BOM not in text
    # the rest of the program's first line is intact, and no line moved
    assert text.startswith("#include <cstdio>\n")
    assert text.splitlines()[2].startswith("int main()")
