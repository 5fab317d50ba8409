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
template <class __cf_T> struct __cf_storage { typedef __cf_T type; };
template <> struct __cf_storage<precision::tf32> { typedef float type; };
template <class Use, int m, int n, int k, class __cf_T, class Layout = void>
class fragment {
 public:
  enum { num_elements = 8 };
  typedef typename __cf_storage<__cf_T>::type element_type;
  typedef element_type storage_element_type;
  element_type x[num_elements];
};
template <class Use, int m, int n, int k, class __cf_T, class Layout, class __cf_U>
__device__ void fill_fragment(fragment<Use, m, n, k, __cf_T, Layout> &a, const __cf_U &v);
template <class Use, int m, int n, int k, class __cf_T, class Layout, class __cf_U>
__device__ void load_matrix_sync(fragment<Use, m, n, k, __cf_T, Layout> &a, const __cf_U *p,
                                 unsigned ldm);
template <class Use, int m, int n, int k, class __cf_T, class __cf_U>
__device__ void load_matrix_sync(fragment<Use, m, n, k, __cf_T, void> &a, const __cf_U *p, unsigned ldm,
                                 layout_t layout);
template <int m, int n, int k, class __cf_T, class __cf_U>
__device__ void store_matrix_sync(__cf_U *p, const fragment<accumulator, m, n, k, __cf_T, void> &a,
                                  unsigned ldm, layout_t layout);
template <int m, int n, int k, class __cf_TA, class __cf_LA, class __cf_TB, class __cf_LB, class __cf_TC, class __cf_TD>
__device__ void mma_sync(fragment<accumulator, m, n, k, __cf_TD, void> &d,
                         const fragment<matrix_a, m, n, k, __cf_TA, __cf_LA> &a,
                         const fragment<matrix_b, m, n, k, __cf_TB, __cf_LB> &b,
                         const fragment<accumulator, m, n, k, __cf_TC, void> &c,
                         bool satf = false);
__device__ float __float_to_tf32(float);
}  // namespace wmma
}  // namespace nvcuda
