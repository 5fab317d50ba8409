// A SharedMemory<T> in a header: the front end does not lower headers, so hfuse cannot copy
// it for part 2 (thread mode) and refuses.
#pragma once
template <class T> struct HeaderSmem {
  __device__ inline operator T *() {
    extern __shared__ int __hsmem[];
    return (T *)__hsmem;
  }
};
