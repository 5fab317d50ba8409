/* cudafuse stand-in for mma.h: the nvcuda::wmma declarations kernels use, to parse them. The
   fragment layout is opaque (num_elements/x[] as in CUDA, sized for the largest shape). */
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace nvcuda {
namespace wmma {
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision { struct tf32 {}; }
namespace experimental { namespace precision { struct u4; struct s4; struct b1; } }
enum layout_t { mem_row_major, mem_col_major };
template <class T> struct __cf_storage { typedef T type; };
template <> struct __cf_storage<precision::tf32> { typedef float type; };
template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment {
 public:
  enum { num_elements = 8 };
  typedef typename __cf_storage<T>::type element_type;
  typedef element_type storage_element_type;
  element_type x[num_elements];
};
template <class Use, int m, int n, int k, class T, class Layout, class U>
__device__ void fill_fragment(fragment<Use, m, n, k, T, Layout> &a, const U &v);
template <class Use, int m, int n, int k, class T, class Layout, class U>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout> &a, const U *p,
                                 unsigned ldm);
template <class Use, int m, int n, int k, class T, class U>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, void> &a, const U *p, unsigned ldm,
                                 layout_t layout);
template <int m, int n, int k, class T, class U>
__device__ void store_matrix_sync(U *p, const fragment<accumulator, m, n, k, T, void> &a,
                                  unsigned ldm, layout_t layout);
template <int m, int n, int k, class TA, class LA, class TB, class LB, class TC, class TD>
__device__ void mma_sync(fragment<accumulator, m, n, k, TD, void> &d,
                         const fragment<matrix_a, m, n, k, TA, LA> &a,
                         const fragment<matrix_b, m, n, k, TB, LB> &b,
                         const fragment<accumulator, m, n, k, TC, void> &c,
                         bool satf = false);
__device__ float __float_to_tf32(float);
}  // namespace wmma
}  // namespace nvcuda
