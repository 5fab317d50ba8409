/* One libclang visit of a cursor's whole subtree, flattened in preorder (see flat.py).

   The lowering asks every cursor for its children, its extent and its type, every name for
   the declaration it refers to and every literal for its value: through ctypes, several
   foreign calls per cursor and a Python callback per child. Here they are C calls, made
   once per cursor of a subtree, and Python reads the answers from arrays. Built by flat.py
   with the machine's C compiler; without one the lowering asks libclang cursor by cursor,
   as before, with the same results.

   libclang's wheel ships no headers: the few types used are declared as clang-c/Index.h
   declares them (a stable C ABI). The library is not linked against either: the caller
   hands in the addresses of the functions of the libclang it loaded, so the helper calls
   that very library whatever its file is called. */

#include <stddef.h>
#include <stdint.h>

typedef struct { int kind; int xdata; const void *data[3]; } CXCursor;
typedef struct { const void *ptr_data[2]; unsigned begin_int_data; unsigned end_int_data; }
    CXSourceRange;
typedef struct { int kind; void *data[2]; } CXType;
typedef struct { const void *ptr_data[2]; unsigned int_data; } CXSourceLocation;
typedef void *CXFile;
typedef void *CXClientData;
typedef void *CXEvalResult;
typedef struct { const void *data; unsigned private_flags; } CXString;
typedef int (*CXCursorVisitor)(CXCursor, CXCursor, CXClientData);

typedef struct {
  unsigned (*visit_children)(CXCursor, CXCursorVisitor, CXClientData);
  CXSourceRange (*extent)(CXCursor);
  CXType (*type)(CXCursor);
  CXCursor (*referenced)(CXCursor);
  CXEvalResult (*evaluate)(CXCursor);
  int (*eval_kind)(CXEvalResult);
  long long (*eval_int)(CXEvalResult);
  double (*eval_double)(CXEvalResult);
  void (*eval_dispose)(CXEvalResult);
  CXSourceLocation (*range_start)(CXSourceRange);
  CXSourceLocation (*range_end)(CXSourceRange);
  void (*instantiation)(CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *);
  int (*binary_kind)(CXCursor);
  int (*unary_kind)(CXCursor);
  int (*num_arguments)(CXCursor);
  CXCursor (*argument)(CXCursor, unsigned);
  CXCursor (*canonical)(CXCursor);
  CXSourceLocation (*location)(CXCursor);
  CXString (*spelling)(CXCursor);
  const char *(*c_string)(CXString);
  void (*dispose_string)(CXString);
} Api;

/* CXCursorKind values (clang-c/Index.h) of the cursors asked more than the rest. */
enum { VAR_DECL = 9, PARM_DECL = 10, NULL_CURSOR = 70, DECL_REF_EXPR = 101, MEMBER_REF_EXPR = 102, CALL_EXPR = 103,
       INTEGER_LITERAL = 106, FLOATING_LITERAL = 107, UNARY_OPERATOR = 112,
       BINARY_OPERATOR = 114, COMPOUND_ASSIGNMENT_OPERATOR = 115,
       CXX_BOOL_LITERAL_EXPR = 130 };
enum { EVAL_INT = 1, EVAL_FLOAT = 2 }; /* CXEvalResultKind */

/* Per node i: the cursor; the number of nodes in its subtree, itself included (its next
   sibling is at i + size[i]); its extent's raw begin and end; its type's key (kind, first
   data pointer). For a name, a member or a call (DECL_REF_EXPR, MEMBER_REF_EXPR, CALL_EXPR):
   the referenced declaration's kind and first two data pointers (ref_kind -1: none). For a
   literal: clang's folding of it (eval_kind 0: none, 1: eval_int, 2: eval_double). The
   cursor's kind, and for an operator its CXBinaryOperatorKind or CXUnaryOperatorKind (op;
   0 otherwise), so that the lowering dispatches without a cursor object per node. For a
   call whose every argument (clang_Cursor_getArgument) is one of its children: the
   children's indices, args[arg_at[i]] to args[arg_at[i] + arg_n[i] - 1] (arg_n -1: not
   so, or no call). For a variable or parameter that is its own canonical declaration
   (the one Lowerer.decl names it by): its declaration pointer, its spelling
   (pool[name_at[i]], name_len[i] bytes; -1: not recorded) and where clang expands its
   location (decl_file, decl_off). Writing
   stops at `cap`; `n` counts on, so that a caller whose arrays were too small learns how
   large to make them. */
typedef struct {
  const Api *api;
  CXCursor *cursor;
  unsigned *size;
  unsigned *begin;
  unsigned *end;
  int *type_kind;
  uintptr_t *type_data;
  int *ref_kind;
  uintptr_t *ref_data0;
  uintptr_t *ref_data1;
  int *eval_kind;
  long long *eval_int;
  double *eval_double;
  int *kind;
  int *op;
  unsigned *arg_at;
  int *arg_n;
  unsigned *args;
  uintptr_t *decl_data0;
  unsigned *name_at;
  int *name_len;
  uintptr_t *decl_file;
  unsigned *decl_off;
  size_t n_args; /* entries of args written */
  char *pool;    /* the names, pool_cap bytes */
  size_t pool_n;
  size_t pool_cap;
  size_t n;
  size_t cap;
  unsigned depth;     /* of the cursor being recorded */
  unsigned max_depth; /* deeper: stop, and return (size_t)-1 */
  int too_deep;
} Flat;

static void record(CXCursor c, Flat *out);
static void declared(CXCursor c, size_t i, Flat *out);

static int visit(CXCursor child, CXCursor parent, CXClientData data) {
  Flat *out = (Flat *)data;
  (void)parent;
  record(child, out);
  return out->too_deep ? 0 : 1; /* CXChildVisit_Break, or Continue: record() descends */
}

static void answers(CXCursor c, size_t i, Flat *out) {
  const Api *api = out->api;
  CXSourceRange ext = api->extent(c);
  CXType t = api->type(c);
  out->cursor[i] = c;
  out->begin[i] = ext.begin_int_data;
  out->end[i] = ext.end_int_data;
  out->type_kind[i] = t.kind;
  out->type_data[i] = (uintptr_t)t.data[0];
  out->ref_kind[i] = -1;
  out->ref_data0[i] = out->ref_data1[i] = 0;
  out->eval_kind[i] = 0;
  out->eval_int[i] = 0;
  out->eval_double[i] = 0.0;
  out->kind[i] = c.kind;
  out->op[i] = 0;
  out->arg_at[i] = 0;
  out->arg_n[i] = -1;
  out->decl_data0[i] = 0;
  out->name_at[i] = 0;
  out->name_len[i] = -1;
  out->decl_file[i] = 0;
  out->decl_off[i] = 0;
  if (c.kind == VAR_DECL || c.kind == PARM_DECL)
    declared(c, i, out);
  if (c.kind == BINARY_OPERATOR || c.kind == COMPOUND_ASSIGNMENT_OPERATOR) {
    out->op[i] = api->binary_kind(c);
  } else if (c.kind == UNARY_OPERATOR) {
    out->op[i] = api->unary_kind(c);
  } else if (c.kind == DECL_REF_EXPR || c.kind == MEMBER_REF_EXPR || c.kind == CALL_EXPR) {
    CXCursor d = api->referenced(c);
    if (!(d.kind == NULL_CURSOR && !d.xdata && !d.data[0] && !d.data[1] && !d.data[2])) {
      out->ref_kind[i] = d.kind;
      out->ref_data0[i] = (uintptr_t)d.data[0];
      out->ref_data1[i] = (uintptr_t)d.data[1];
    }
  } else if (c.kind == INTEGER_LITERAL || c.kind == FLOATING_LITERAL ||
             c.kind == CXX_BOOL_LITERAL_EXPR) {
    CXEvalResult r = api->evaluate(c);
    if (r) {
      int kind = api->eval_kind(r);
      if (kind == EVAL_INT) {
        out->eval_kind[i] = EVAL_INT;
        out->eval_int[i] = api->eval_int(r);
      } else if (kind == EVAL_FLOAT) {
        out->eval_kind[i] = EVAL_FLOAT;
        out->eval_double[i] = api->eval_double(r);
      }
      api->eval_dispose(r);
    }
  }
}

static void declared(CXCursor c, size_t i, Flat *out) {
  const Api *api = out->api;
  if (c.kind == VAR_DECL && api->canonical(c).data[0] != c.data[0])
    return; /* a redeclaration: named by its first declaration, asked of libclang */
  CXString s = api->spelling(c);
  const char *text = api->c_string(s);
  size_t len = 0;
  if (text)
    while (text[len])
      len++;
  if (out->pool_n + len <= out->pool_cap) {
    for (size_t k = 0; k < len; k++)
      out->pool[out->pool_n + k] = text[k];
    CXFile f = 0;
    unsigned line = 0, col = 0, off = 0;
    api->instantiation(api->location(c), &f, &line, &col, &off);
    out->decl_data0[i] = (uintptr_t)c.data[0];
    out->name_at[i] = (unsigned)out->pool_n;
    out->name_len[i] = (int)len;
    out->decl_file[i] = (uintptr_t)f;
    out->decl_off[i] = off;
    out->pool_n += len;
  }
  api->dispose_string(s);
}

static int same_expr(CXCursor a, CXCursor b) {
  /* kind, xdata, the Stmt and the unit: not data[0], the enclosing declaration, which a
     visit of a call's children leaves null where clang_Cursor_getArgument sets it */
  return a.kind == b.kind && a.xdata == b.xdata && a.data[1] == b.data[1] &&
         a.data[2] == b.data[2];
}

/* Call i's arguments as indices of its children (recorded, all of them, below i), where
   each is one; the last child that matches, as a table of the children by identity
   would give. */
static void call_arguments(CXCursor c, size_t i, Flat *out) {
  const Api *api = out->api;
  int nargs = api->num_arguments(c);
  size_t end = out->n, at = out->n_args;
  if (nargs < 0 || end > out->cap || at + (size_t)nargs > out->cap)
    return;
  for (int a = 0; a < nargs; a++) {
    CXCursor arg = api->argument(c, (unsigned)a);
    size_t found = (size_t)-1;
    for (size_t j = i + 1; j < end; j += out->size[j])
      if (same_expr(out->cursor[j], arg))
        found = j;
    if (found == (size_t)-1)
      return; /* not a child (or none): the lowering asks libclang */
    out->args[at + (size_t)a] = (unsigned)found;
  }
  out->arg_at[i] = (unsigned)at;
  out->arg_n[i] = nargs;
  out->n_args = at + (size_t)nargs;
}

/* Recursion: one level of C stack (this frame and libclang's visit) per level of the tree.
   A deeper tree (generated code: `a + a + ...` thousands of terms) would overflow the
   stack, so it is refused and lowered cursor by cursor, where the lowering stops at its own
   depth limit with a diagnostic. */
static void record(CXCursor c, Flat *out) {
  size_t i = out->n++;
  if (i < out->cap)
    answers(c, i, out);
  if (++out->depth > out->max_depth) {
    out->too_deep = 1;
    return;
  }
  out->api->visit_children(c, visit, out);
  out->depth--;
  if (i < out->cap) {
    out->size[i] = (unsigned)(out->n - i);
    if (c.kind == CALL_EXPR && !out->too_deep)
      call_arguments(c, i, out);
  }
}

/* Flattens `root`'s subtree; returns the number of nodes (more than `out->cap`: nothing
   past the cap was written, call again with larger arrays), or (size_t)-1 for a tree
   deeper than `out->max_depth`. */
size_t cudafuse_flatten(CXCursor root, Flat *out) {
  out->n = 0;
  out->depth = 0;
  out->too_deep = 0;
  out->n_args = 0;
  out->pool_n = 0;
  record(root, out);
  return out->too_deep ? (size_t)-1 : out->n;
}

/* Spans of a flattened subtree (clang_api.Spans.span, which the lowering asks once per IR
   node), from the extents cudafuse_flatten recorded. A node whose extent lies in the main
   file, with no macro location at either end, is main-file offsets (begin and end minus the
   file's start in clang's address space: kind 0), with the line and column of its start
   found in the main file's line starts when the caller gives them (as SourceFile.line_col
   finds them: the last line starting at or before the offset). Any other node (in a macro
   expansion, another file) is where clang says its ends are expanded (kind 1): the file,
   line and column of its start and the offsets of both ends, as Locations reads them one
   foreign call at a time. */
typedef struct {
  const Api *api;
  const CXCursor *cursor;
  const unsigned *begin;
  const unsigned *end;
  size_t n;
  long long base; /* the main file's start; has_base 0: every node takes kind 1 */
  long long size;
  int has_base;
  const unsigned *line_starts; /* NULL: lines and columns of kind 0 are not computed */
  size_t n_lines;
  int *kind;
  unsigned *start;
  unsigned *stop;
  unsigned *line;
  unsigned *col;
  uintptr_t *file;
} Spans;

enum { MACRO_BIT = 1u << 31 };

void cudafuse_spans(Spans *s) {
  const Api *api = s->api;
  for (size_t i = 0; i < s->n; i++) {
    unsigned b = s->begin[i], e = s->end[i];
    s->line[i] = s->col[i] = 0;
    s->file[i] = 0;
    if (s->has_base && !((b | e) & MACRO_BIT)) {
      long long a = (long long)b - s->base, z = (long long)e - s->base;
      if (0 <= a && a <= z && z <= s->size) {
        s->kind[i] = 0;
        s->start[i] = (unsigned)a;
        s->stop[i] = (unsigned)z;
        if (s->line_starts && s->n_lines) {
          size_t lo = 0, hi = s->n_lines; /* first line start > a is at hi */
          while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->line_starts[mid] <= (unsigned long long)a)
              lo = mid + 1;
            else
              hi = mid;
          }
          if (lo > 0) {
            s->line[i] = (unsigned)lo;
            s->col[i] = (unsigned)(a - s->line_starts[lo - 1] + 1);
          }
        }
        continue;
      }
    }
    CXSourceRange ext = api->extent(s->cursor[i]);
    CXFile f = 0, f2 = 0;
    unsigned line = 0, col = 0, off = 0, l2 = 0, c2 = 0, off2 = 0;
    api->instantiation(api->range_start(ext), &f, &line, &col, &off);
    api->instantiation(api->range_end(ext), &f2, &l2, &c2, &off2);
    s->kind[i] = 1;
    s->start[i] = off;
    s->stop[i] = off2;
    s->line[i] = line;
    s->col[i] = col;
    s->file[i] = (uintptr_t)f;
  }
}
