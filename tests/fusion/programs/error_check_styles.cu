// Error checks in C++ styles between two launches of a pipeline: each only reads the
// error state and reports it (exit, throw), so the launches around it may fuse.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
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

struct CudaError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

static void throw_if_kernel_failed(const char *what) {
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::ostringstream os;
        os << what << " failed: " << cudaGetErrorString(e);
        throw std::runtime_error(os.str());
    }
}

struct LaunchChecker {
    const char *where;
    void operator()(cudaError_t e) const {
        if (e != cudaSuccess) {
            fprintf(stderr, "%s: %s\n", where, cudaGetErrorString(e));
            exit(1);
        }
    }
};

void p_lambda(const float *in, float *mid, float *out, int n) {
    auto ok = [](cudaError_t e) {
        if (e != cudaSuccess) {
            fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
            exit(1);
        }
    };
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    ok(cudaGetLastError());
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
    ok(cudaGetLastError());
}

void p_exception_class(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw CudaError(cudaGetErrorString(e));
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

void p_ostringstream(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    throw_if_kernel_failed("twice");
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
    throw_if_kernel_failed("plus_one");
}

void p_std_function(const float *in, float *mid, float *out, int n) {
    std::function<void(cudaError_t, const std::string &)> check =
        [](cudaError_t e, const std::string &msg) {
            if (e != cudaSuccess) throw std::runtime_error(msg + cudaGetErrorString(e));
        };
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    check(cudaGetLastError(), "twice: ");
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

void p_checker_class(const float *in, float *mid, float *out, int n) {
    LaunchChecker check{"pipeline"};
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    check(cudaGetLastError());
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

void p_lambda_clears(const float *in, float *mid, float *out, int n) {
    auto ok = [&](cudaError_t e) {
        if (e != cudaSuccess) exit(1);
        cudaMemset(mid, 0, n * sizeof(float));
    };
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    ok(cudaGetLastError());
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

// An exception whose member initialiser clears a device buffer: not an error check.
struct ClearingFailure : std::logic_error {
    int code;
    explicit ClearingFailure(float *p)
        : std::logic_error("cleared"), code((int)cudaMemset(p, 0, 4)) {}
};

void p_initialiser_clears(const float *in, float *mid, float *out, int n) {
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    if (cudaGetLastError() != cudaSuccess) throw ClearingFailure(mid);
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

// A checker class whose operator() also clears a buffer it holds: not an error check.
struct ClearingChecker {
    float *buf;
    void operator()(cudaError_t e) const {
        if (e != cudaSuccess) exit(1);
        cudaMemset(buf, 0, 4);
    }
};

void p_checker_clears(const float *in, float *mid, float *out, int n) {
    ClearingChecker check{mid};
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    check(cudaGetLastError());
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}

// A std::function given by reference to a function that may rebind it: its lambda is not
// known at the call.
static void rebind(std::function<void(cudaError_t)> &f, float *buf) {
    f = [buf](cudaError_t) { cudaMemset(buf, 0, 4); };
}

void p_rebound(const float *in, float *mid, float *out, int n) {
    std::function<void(cudaError_t)> check = [](cudaError_t e) { if (e) exit(1); };
    rebind(check, mid);
    twice<<<(n + 127) / 128, 128>>>(in, mid, n);
    check(cudaGetLastError());
    plus_one<<<(n + 127) / 128, 128>>>(mid, out, n);
}
