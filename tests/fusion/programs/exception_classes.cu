// Exception classes with written-out constructors thrown by error checks between two
// launches (issue 31). The p_* pipelines whose constructors touch only the new object and
// their arguments fuse; the p_cut_* ones (a global written, device memory cleared, a base
// of the program's left to its default constructor, a member's default initialiser)
// keep the launches apart.
#include <cstdio>
#include <stdexcept>
#include <string>

__global__ void twice(const float *in, float *mid, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mid[i] = 2.0f * in[i];
}

__global__ void plus_one(const float *mid, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = mid[i] + 1.0f;
}

// Members, a message built by concatenation, a what() override.
class CudaError : public std::runtime_error {
  public:
    CudaError(const char *where, cudaError_t e)
        : std::runtime_error(std::string(where) + ": " + cudaGetErrorString(e)), code_(e),
          line_(0) {}
    const char *what() const noexcept override { return std::runtime_error::what(); }
    cudaError_t code() const { return code_; }

  private:
    cudaError_t code_;
    int line_;
};

// Two bases, one of the program's, initialised explicitly.
struct Located {
    int line;
    explicit Located(int l) : line(l) {}
};
struct LocatedError : std::runtime_error, Located {
    LocatedError(const std::string &m, int l) : std::runtime_error(m), Located(l) {}
};

// A std::string member, thrown by a helper.
struct NamedError : std::exception {
    std::string text;
    NamedError(const char *kernel, cudaError_t e)
        : text(std::string(kernel) + " failed: " + cudaGetErrorString(e)) {}
    const char *what() const noexcept override { return text.c_str(); }
};

void check_named(const char *kernel) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw NamedError(kernel, e);
}

void p_members(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw CudaError("twice", e);
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

void p_two_bases(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw LocatedError("twice failed", __LINE__);
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

void p_helper(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    check_named("twice");
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

// ---- constructors that do more than build the object ----

int g_failures = 0;
struct CountingError : std::runtime_error {
    int seq;
    explicit CountingError(const char *m) : std::runtime_error(m), seq(++g_failures) {}
};

struct ClearingError : std::runtime_error {
    ClearingError(const char *m, float *buf, int n) : std::runtime_error(m) {
        cudaMemset(buf, 0, n * sizeof(float));
    }
};

struct Logged {
    Logged() { ++g_failures; }
};
struct LoggedError : std::runtime_error, Logged {
    explicit LoggedError(const char *m) : std::runtime_error(m) {}
};

void p_cut_global(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw CountingError("twice failed");
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

void p_cut_device(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw ClearingError("twice failed", mid, n);
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

void p_cut_default_base(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw LoggedError("twice failed");
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}

struct Sequence {
    int seq = ++g_failures;
};
struct SequencedError : std::runtime_error {
    Sequence at;
    explicit SequencedError(const char *m) : std::runtime_error(m), at{} {}
};

void p_cut_member_default(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 255) / 256, 256>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw SequencedError("twice failed");
    plus_one<<<(n + 255) / 256, 256>>>(mid, out, n);
}
