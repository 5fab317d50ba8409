// Kernel launches from C++17 host constructs (issue 31 audit): a lambda capturing by
// reference, a generic lambda, std::function over a member call operator, member functions
// of a singleton with a static member, a template with deduced arguments, if constexpr,
// structured bindings, std::optional; main checks every element and returns 1 otherwise.
#include <cuda_runtime.h>
#include <cstdio>
#include <functional>
#include <optional>
#include <tuple>
#include <array>
#include <type_traits>

template <typename Op>
__global__ void map_k(float* d, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = op(d[i]);
}
struct AddOne { __device__ float operator()(float x) const { return x + 1.f; } };
struct Mul { float k; __device__ float operator()(float x) const { return x * k; } };

__global__ void sq_k(float* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = d[i] * d[i];
}

namespace gpu {
struct Launcher {
    dim3 block{128};
    static constexpr int kMax = 1 << 20;
    static Launcher& instance() { static Launcher l; return l; }
    template <typename Op> void map(float* d, int n, Op op) const {
        map_k<<<(n + block.x - 1) / block.x, block>>>(d, n, op);
    }
    void square(float* d, int n) const { sq_k<<<dim3((n + 127) / 128), block>>>(d, n); }
    void operator()(float* d, int n) const { square(d, n); }
};
}  // namespace gpu

template <typename T, typename F>
constexpr auto apply_twice(F&& f, T x) { return f(f(x)); }

template <int N> std::array<int, N> sizes() { std::array<int, N> a{}; for (int i = 0; i < N; ++i) a[i] = i; return a; }

std::optional<float> maybe_scale(bool on) { if (on) return 3.f; return std::nullopt; }

std::tuple<int, int> geometry(int n) { return {n, (n + 127) / 128}; }

void run_all(float* host, int n) {
    float* d = nullptr;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice);
    auto [count, blocks] = geometry(n);
    const auto& L = gpu::Launcher::instance();
    // a lambda that launches, captured by reference
    auto add = [&]() { map_k<<<blocks, 128>>>(d, count, AddOne{}); };
    add();
    // generic lambda launching
    auto generic = [d, count](auto op) { gpu::Launcher::instance().map(d, count, op); };
    if (auto k = maybe_scale(true); k) generic(Mul{*k});
    // std::function wrapping a member call
    std::function<void(float*, int)> sq = [&L](float* p, int m) { L(p, m); };
    sq(d, count);
    if constexpr (std::is_same_v<decltype(count), int>) L.square(d, count);
    int x = apply_twice([](int v) { return v + 1; }, 1);
    auto s = sizes<4>();
    if (x != 3 || s[3] != 3) { printf("bad host\n"); }
    cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}

int main() {
    const int n = 300;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = 1.f;
    run_all(h, n);
    // (1+1)*3 = 6, squared twice = 1296
    for (int i = 0; i < n; ++i) if (h[i] != 1296.f) { printf("bad %d %f\n", i, h[i]); return 1; }
    printf("ok\n");
    return 0;
}
