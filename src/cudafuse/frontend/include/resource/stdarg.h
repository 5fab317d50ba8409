/* cudafuse: minimal compiler-provided stdarg.h (see stddef.h). */
#ifndef __CUDAFUSE_STDARG_H
#define __CUDAFUSE_STDARG_H
typedef __builtin_va_list va_list;
typedef __builtin_va_list __gnuc_va_list;
#define va_start(ap, p) __builtin_va_start(ap, p)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, t) __builtin_va_arg(ap, t)
#define va_copy(d, s) __builtin_va_copy(d, s)
#define __va_copy(d, s) __builtin_va_copy(d, s)
#endif
#undef __need___va_list
#undef __need_va_list
