"""kernel_census: the kernels a file's text declares and defines, read without clang."""

from __future__ import annotations

from cudafuse.frontend.kernel_census import spelled_kernels


def test_declarations_and_definitions() -> None:
    text = (b"__global__ void a(int *p);\n"
            b"__global__ void __launch_bounds__(64, 2) a(int *p) { p[0] = 1; }\n"
            b"template <int N> __global__ void b(float (*x)[N]) noexcept { }\n"
            b"template __global__ void b<4>(float (*)[4]);\n"
            b"extern \"C\" __global__ void ns_k(int *p) { }\n")
    got = [(k.name, k.defined) for k in spelled_kernels(text, [])]
    assert got == [("a", False), ("a", True), ("b", True), ("b", False), ("ns_k", True)]


def test_skipped_ranges_comments_strings_and_directives() -> None:
    text = (b"#if 0\n__global__ void hidden(int *p) {}\n#endif\n"
            b"// __global__ void c1(int *p) {}\n/* __global__ void c2(int *p) {} */\n"
            b'const char *s = "__global__ void s(int *p) {}";\n'
            b"#define K __global__ void m(int *p) \\\n  {}\n"
            b"__global__ void real(int *p) {}\n")
    skipped = [(0, text.index(b"#endif"))]
    assert [k.name for k in spelled_kernels(text, skipped)] == ["real"]


def _by_every_token(data: bytes, skipped: list[tuple[int, int]]) -> list[tuple[str, int, bool]]:
    """spelled_kernels as it was before it skipped ahead (issue 27): every token made, each
    `__global__` among them read from the whole list."""
    from cudafuse.frontend import kernel_census as kc

    toks = kc._tokens(data, skipped)
    out = []
    for i, (start, kind, text) in enumerate(toks):
        if kind == "ident" and text == b"__global__":
            stream = kc._Stream(b"", 0, [])
            stream._got = toks[i:]
            found = kc._name_after(stream, 1)
            if found:
                out.append((found[0], start, kc._has_body(stream, found[1])))
    return out


def test_skipping_ahead_finds_what_every_token_finds() -> None:
    """The census finds `__global__` tokens from a scan of comments, strings, directives and
    runs of code, not from a token per identifier: the same kernels, on the test programs
    and on them cut about with the characters that change how a scan reads what follows."""
    import random
    from pathlib import Path

    # A raw string's prefix read as an identifier would end the string at its first quote.
    raw = b'auto s = R"(x" __global__ void a(int *p) {} ")";\n__global__ void b(int *p) {}\n'
    assert [k.name for k in spelled_kernels(raw, [])] == ["b"] == \
        [k for k, _, _ in _by_every_token(raw, [])]
    root = Path(__file__).resolve().parents[1]
    texts = [p.read_bytes()[:6000] for p in sorted(root.rglob("*.cu"))[::3]]
    texts = [t for t in texts if b"__global__" in t]
    assert len(texts) > 30
    for t in texts:
        assert [(k.name, k.offset, k.defined) for k in spelled_kernels(t, [])] == \
            _by_every_token(t, [])
    pieces = [b"//", b"/*", b"*/", b'"', b"'", b'u8"', b'R"(', b')"', b'uR"x(', b"L'", b"\n#",
              b"\n  #", b"\\\n", b"9", b"0x", b"__global__", b" __global__ void k(", b"(",
              b")", b"{", b";", b"<", b"::", b"=", b"\n", b"a__global__", b"9__global__"]
    rnd = random.Random(27)
    for _ in range(120):
        data = bytearray(rnd.choice(texts)[:2000])
        for _ in range(rnd.randint(1, 8)):
            at = rnd.randrange(len(data) + 1)
            data[at:at] = rnd.choice(pieces)
        skipped = []
        if rnd.random() < 0.3:
            a = rnd.randrange(len(data))
            skipped = [(a, a + rnd.randint(0, 1500))]
        got = spelled_kernels(bytes(data), skipped)
        assert [(k.name, k.offset, k.defined) for k in got] == \
            _by_every_token(bytes(data), skipped), bytes(data)
