// A rounded-up division as a header template, the way utility headers write it.
#pragma once
template <typename T>
__host__ __device__ T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}
