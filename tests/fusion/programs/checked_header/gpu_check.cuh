#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
namespace gpu {
template <typename T> std::string str(const T &v) {
    std::stringstream ss;
    ss << v;
    return ss.str();
}
inline void ensure(cudaError_t e, const char *what, int line) {
    if (e != cudaSuccess) {
        std::stringstream ss;
        ss << what << " (line " << line << "): " << cudaGetErrorName(e);
        throw std::runtime_error(ss.str());
    }
}
}  // namespace gpu
