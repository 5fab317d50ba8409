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
