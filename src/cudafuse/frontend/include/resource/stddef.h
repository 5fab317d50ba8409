/* cudafuse: minimal compiler-provided stddef.h for parsing with libclang's wheel, which ships no
   resource headers. Defines everything regardless of the __need_* protocol glibc uses. */
#ifndef __CUDAFUSE_STDDEF_H
#define __CUDAFUSE_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif
typedef struct { long long __a; long double __b; } max_align_t;
#ifdef __cplusplus
namespace std { typedef decltype(nullptr) nullptr_t; }
using ::std::nullptr_t;
#define NULL __null
#else
#define NULL ((void *)0)
#endif
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
#undef __need_size_t
#undef __need_ptrdiff_t
#undef __need_wchar_t
#undef __need_NULL
#undef __need_wint_t
#undef __need_offsetof
#undef __need_max_align_t
#ifndef __CUDAFUSE_WINT_T
#define __CUDAFUSE_WINT_T
typedef __WINT_TYPE__ wint_t;
#endif
