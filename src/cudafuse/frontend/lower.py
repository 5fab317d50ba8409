"""Lowering libclang cursors to the IR in cudafuse.ir."""

from __future__ import annotations

import re

import clang.cindex as ci

from cudafuse.frontend.clang_api import (
    MACRO_BIT,
    Locations,
    Spans,
    arguments,
    binary_op,
    binary_spelling,
    canonical,
    children,
    evaluate,
    main_file_base,
    referenced,
    spelling,
    unary_op,
    unary_spelling,
)
from cudafuse.frontend.clang_api import (
    namespaces as clang_namespaces,
)
from cudafuse.frontend.clang_api import storage_class as raw_storage_class
from cudafuse.frontend.flat import FlatCursor, FlatTree, flatten
from cudafuse.frontend.kernel_census import skipped_ranges
from cudafuse.frontend.macro_bounds import Macro, macro_launch_bounds, macro_table
from cudafuse.ir import nodes as n
from cudafuse.ir.code_text import code_only
from cudafuse.ir.program import Function, GlobalVar, Param, TemplateParam
from cudafuse.ir.source import SourceFile, Span

K = ci.CursorKind
BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"})
_CAST_KINDS = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
               K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR}
_SPACE_ATTRS = {K.CUDAGLOBAL_ATTR: "global", K.CUDADEVICE_ATTR: "device",
                K.CUDAHOST_ATTR: "host", K.CUDASHARED_ATTR: "shared",
                K.CUDACONSTANT_ATTR: "constant"}


_LEAVES = frozenset({K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CXX_BOOL_LITERAL_EXPR,
                     K.STRING_LITERAL, K.DECL_REF_EXPR})

# The hot paths compare kinds as integers (Cursor._kind_id): `cursor.kind` builds a
# CursorKind per call, and these run once per IR node.
_LEAF_IDS = frozenset(k.value for k in _LEAVES)
_NO_KIDS: list[int] = []  # never appended to
_SEE_THROUGH_IDS = frozenset({K.PAREN_EXPR.value, K.UNEXPOSED_EXPR.value})
_UNEXPOSED_EXPR_ID = K.UNEXPOSED_EXPR.value
_INTEGER_LITERAL, _FLOATING_LITERAL = K.INTEGER_LITERAL.value, K.FLOATING_LITERAL.value
_BOOL_LITERAL, _STRING_LITERAL = K.CXX_BOOL_LITERAL_EXPR.value, K.STRING_LITERAL.value
_DECL_REF, _MEMBER_REF = K.DECL_REF_EXPR.value, K.MEMBER_REF_EXPR.value
_BINARY_IDS = frozenset({K.BINARY_OPERATOR.value, K.COMPOUND_ASSIGNMENT_OPERATOR.value})
_UNARY_OPERATOR, _CALL, _SUBSCRIPT = (K.UNARY_OPERATOR.value, K.CALL_EXPR.value,
                                      K.ARRAY_SUBSCRIPT_EXPR.value)
_CONDITIONAL, _INIT_LIST, _CXX_UNARY = (K.CONDITIONAL_OPERATOR.value, K.INIT_LIST_EXPR.value,
                                        K.CXX_UNARY_EXPR.value)
_CAST_IDS = frozenset(k.value for k in _CAST_KINDS)
_VAR_DECL_ID, _COMPOUND_ID, _DECL_STMT_ID = (K.VAR_DECL.value, K.COMPOUND_STMT.value,
                                             K.DECL_STMT.value)
_SPACE_ATTR_IDS = {k.value: v for k, v in _SPACE_ATTRS.items()}
_UNEXPOSED_ATTR_ID = K.UNEXPOSED_ATTR.value  # __launch_bounds__ among others
_PARM_DECL_ID, _CONSTRUCTOR_ID = K.PARM_DECL.value, K.CONSTRUCTOR.value
_FUNCTION_IDS = frozenset({K.FUNCTION_DECL.value, K.FUNCTION_TEMPLATE.value})
_FUNCTION_DECL_ID = K.FUNCTION_DECL.value
_VARIABLE_IDS = frozenset({K.VAR_DECL.value, K.PARM_DECL.value, K.FIELD_DECL.value})


def _kind_class(kind_id: int, cache: dict[int, str] = {}) -> str:  # noqa: B006 - a cache
    """'stmt', 'expr' or '' for a cursor kind id (clang_isStatement/isExpression, cached)."""
    got = cache.get(kind_id)
    if got is None:
        kind = K.from_id(kind_id)
        got = cache[kind_id] = ("stmt" if kind.is_statement() else
                                "expr" if kind.is_expression() else "")
    return got


# Generated code can nest expressions thousands deep (a + a + ... is left-nested). Lowering
# recurses once per level, and parse.py raises Python's recursion limit to allow this depth;
# deeper functions are skipped with a warning instead of overflowing the stack.
MAX_DEPTH = 2000


_REDECLARABLE = frozenset({K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD, K.VAR_DECL})
_REDECLARABLE_IDS = frozenset(k.value for k in _REDECLARABLE)
_STATIC, _EXTERN = ci.StorageClass.STATIC.value, ci.StorageClass.EXTERN.value


_CLASS_KINDS = frozenset({K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE, K.UNION_DECL,
                          K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION})


def _in_std(c: ci.Cursor) -> bool:
    """Whether a declaration is in namespace std (or one nested in it)."""
    p = c.semantic_parent
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        if p.kind == K.NAMESPACE and p.spelling == "std":
            q = p.semantic_parent  # (libstdc++'s `extern "C++" { namespace std {`)
            while q is not None and q.kind == K.LINKAGE_SPEC:
                q = q.semantic_parent
            return q is None or q.kind == K.TRANSLATION_UNIT
        p = p.semantic_parent
    return False


def _no_default_initialisers(cls: ci.Cursor, depth: int) -> bool:
    """Whether no member of a class of the program, of its bases or of its members of the
    program's classes, has a default initialiser (`int seq = ++count;`), which its implicit
    or aggregate construction would run without any expression saying so."""
    if depth > 8:
        return False
    for part in cls.get_children():
        if part.kind == K.FIELD_DECL and any(ch.kind.is_expression()
                                             for ch in part.get_children()):
            return False
        if part.kind in (K.FIELD_DECL, K.CXX_BASE_SPECIFIER):
            t = part.type.get_canonical()
            while t.kind == ci.TypeKind.CONSTANTARRAY:
                t = t.element_type.get_canonical()
            d = t.get_declaration() if t.kind == ci.TypeKind.RECORD else None
            if d is not None and not _in_std(d) and not _no_default_initialisers(d, depth + 1):
                return False
    return True


def _class_of(c: ci.Cursor) -> str:
    """The class a member function belongs to ('' for free functions)."""
    parent = c.semantic_parent
    return parent.spelling if parent is not None and parent.kind in _CLASS_KINDS else ""


def _literal(c: ci.Cursor) -> int | float | None:
    """evaluate(c) for a literal, from the flattened tree's arrays where there is one."""
    if c.__class__ is FlatCursor:
        return c._flat.value(c._i)
    return evaluate(c)


class LoweringError(Exception):
    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.span = span


def decl_id(cursor: ci.Cursor, locations: Locations | None = None) -> str:
    """A stable name for a declaration: spelling, file and offset of its declaration."""
    fname, _, _, offset = (locations or Locations())(cursor.location)
    return f"{cursor.spelling}@{fname}:{offset}"


def _template_of_instance(d: ci.Cursor) -> ci.Cursor:
    """The function template `d` is an implicit instantiation of, else `d` itself."""
    t = ci.conf.lib.clang_getSpecializedCursorTemplate(d)
    if t is None or t.kind != K.FUNCTION_TEMPLATE:
        return d
    tl, dl = t.location, d.location
    if tl.file is None or dl.file is None or tl.offset != dl.offset or \
            tl.file.name != dl.file.name:
        return d  # an explicit specialisation, or no instantiation
    return t


def _unresolved_name(c: ci.Cursor) -> str:
    """The name a call left unresolved in a template names (`cudaGetErrorString(err)` with
    `err` of a template type: a reference to an overload set, spelled by its child)."""
    for k in c.get_children():
        if k.kind == K.OVERLOADED_DECL_REF:
            return spelling(k)
    return ""


class Lowerer:
    """Lowers the cursors of one main file. Spans refer to `source` (the main file)."""

    def __init__(self, source: SourceFile, tu: ci.TranslationUnit | None = None):
        self.source = source
        self.loc = Locations()  # for this translation unit only
        base = main_file_base(tu, source.path) if tu is not None else None
        self.spans = Spans(self.loc, source.path, len(source.data), base, source.line_col)
        self._refs: dict[tuple[int, int, int], tuple[str, str, str, int | float | None]] = {}
        self._decls: dict[tuple[int, int], str] = {}
        self._var_types: dict[tuple[int, int], tuple[str, bool, tuple[int, ...]]] = {}
        self._param_types: dict[tuple[int, int], tuple[
            str, bool, str, bool, bool, bool, str, tuple[str, ...] | None,
            tuple[str, ...] | None]] = {}
        # Per referenced declaration (a flattened tree's key), what the lowering asks of the
        # names, members and calls that refer to it, and per type whether its canonical type
        # is a pointer: asked again and again of the same few declarations and types.
        self._names: dict[tuple[int, int, int], str] = {}
        self._callees: dict[tuple[int, int, int], tuple[int, str, str]] = {}
        self._pointers: dict[tuple[int, int], bool] = {}
        self.span = self.spans.span  # bound once: called for every IR node
        self._flat_span = self.spans._flat_span
        self._type_spelling = self.spans.type_spelling
        self._types = self.spans.types
        self._depth = 0
        self._tu = tu
        self._code: bytes | None = None
        self._macros: dict[str, Macro | None] | None = None

    # ---- helpers -----------------------------------------------------------------------

    def macros(self) -> dict[str, Macro | None]:
        """The unit's macro definitions, read once, when a head needs them."""
        if self._macros is None:
            self._macros = macro_table(self._tu) if self._tu is not None else {}
        return self._macros

    def code(self) -> bytes:
        """The source as clang reads it: comments and skipped branches blanked."""
        if self._code is None:
            # The main file's only: a header entered twice has its whole guarded body
            # skipped the second time, which says nothing about its code.
            main = self._tu is not None and self._tu.spelling == self.source.path
            inactive = skipped_ranges(self._tu, self.source.path) if main else []
            self._code = code_only(self.source.data, inactive)
        return self._code

    def decl(self, cursor: ci.Cursor) -> str:
        # Functions and globals may be declared before they are defined (a kernel prototype
        # above main()): name them all by their first declaration, so that a call, a launch
        # or a use matches the Function or GlobalVar lowered from the definition.
        # Cached by the cursor's identity (kind and Decl pointer): the same callee or
        # variable is named over and over.
        # An implicit instantiation of a function template (`k<float>`, `sq(x)` deduced) is
        # named by its template, like the template's Function: the instantiation stands
        # where its pattern, the definition, is, not at a forward declaration. An explicit
        # specialisation (`template <> ... k<double>(...)`) is a definition of its own.
        key = (cursor._kind_id, cursor.data[0])
        got = self._decls.get(key)
        if got is None:
            if cursor._kind_id == _FUNCTION_DECL_ID:
                cursor = _template_of_instance(cursor)
            target = canonical(cursor) if cursor._kind_id in _REDECLARABLE_IDS else cursor
            fname, _, _, offset = self.loc(target.location)
            got = self._decls[key] = f"{spelling(target)}@{fname}:{offset}"
        return got

    def _named(self, c: ci.Cursor) -> tuple[str, str]:
        """(spelling(c), self.decl(c)) of a variable or parameter; a flattened one's from
        what flatten.c recorded of it where it did (its own canonical declaration)."""
        got = c._flat.declared(c._i) if c.__class__ is FlatCursor else None
        if got is None:
            return spelling(c), self.decl(c)
        name, data0, file, offset = got
        key = (c._kind_id, data0)
        did = self._decls.get(key)
        if did is None:
            did = self._decls[key] = f"{name}@{self.loc.file_name(file)}:{offset}"
        return name, did

    def name_span(self, cursor: ci.Cursor) -> Span:
        fname, line, col, offset = self.loc(cursor.location)
        if fname != self.source.path:
            return Span("", 0, 0, line, col)
        return Span(fname, offset, offset + len(spelling(cursor)), line, col)

    def _spelled(self, c: ci.Cursor) -> str:
        """spelling(c) of a name, member or call. libclang spells such a cursor as the
        declaration it refers to, so a flattened one's is read once per declaration."""
        if c.__class__ is FlatCursor:
            key = c._flat.referenced_key(c._i)
            if key is not None:
                got = self._names.get(key)
                if got is None:
                    got = self._names[key] = spelling(c)
                return got
        return spelling(c)

    def _is_pointer(self, c: ci.Cursor) -> bool:
        """Whether the cursor's type is canonically a pointer (once per type where the
        flattened tree keys it)."""
        if c.__class__ is FlatCursor:
            key = c._flat.type_key(c._i)
            got = self._pointers.get(key)
            if got is None:
                got = self._pointers[key] = \
                    c.type.get_canonical().kind == ci.TypeKind.POINTER
            return got
        return c.type.get_canonical().kind == ci.TypeKind.POINTER

    def _callee(self, c: ci.Cursor) -> tuple[int, str, str] | None:
        """(kind id, spelling, decl id) of the declaration a call refers to, None for
        none; a flattened call's once per declaration."""
        key = c._flat.referenced_key(c._i) if c.__class__ is FlatCursor else None
        got = self._callees.get(key) if key is not None else None
        if got is None:
            d = referenced(c)
            if d is None:
                return None
            got = (d._kind_id, spelling(d), self.decl(d))
            if key is not None:
                self._callees[key] = got
        return got

    @staticmethod
    def attrs(cursor: ci.Cursor) -> set[str]:
        return {_SPACE_ATTR_IDS[k] for c in children(cursor)
                if (k := c._kind_id) in _SPACE_ATTR_IDS}

    # ---- expressions -------------------------------------------------------------------

    def expr(self, c: ci.Cursor) -> n.Expr:
        if c.__class__ is FlatCursor:
            return self._fexpr(c._flat, c._i)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise LoweringError(f"expressions nested more than {MAX_DEPTH} deep",
                                    self.span(c))
            return self._expr(c)
        finally:
            self._depth -= 1

    def _fexpr(self, tree: FlatTree, i: int) -> n.Expr:
        """expr() of node i of a flattened tree."""
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise LoweringError(f"expressions nested more than {MAX_DEPTH} deep",
                                    self._flat_span(tree, i))
            return self._flat_expr(tree, i)
        finally:
            self._depth -= 1

    def _flat_expr(self, tree: FlatTree, i: int) -> n.Expr:
        """_expr() of node i of a flattened tree, read from the tree's arrays: the kinds
        most nodes have are lowered without a cursor object, the rest as _expr does."""
        kinds = tree.kinds
        kind = kinds[i]
        kids = _NO_KIDS if kind in _LEAF_IDS else tree.child_indices(i)
        while kind in _SEE_THROUGH_IDS and len(kids) == 1:
            i = kids[0]
            kind = kinds[i]
            kids = _NO_KIDS if kind in _LEAF_IDS else tree.child_indices(i)
        sp = self._flat_span(tree, i)
        ty = self._types.get((tree.type_kinds[i], tree.type_data[i]))
        if ty is None:
            ty = self._type_spelling(tree.cursor(i))
        if kind == _DECL_REF:
            key = tree.referenced_key(i)
            info = self._refs.get(key) if key is not None else None
            if info is None:
                return self.ref(tree.cursor(i), sp, ty)
            return n.Ref(*info, span=sp, type=ty)
        if kind in _BINARY_IDS and len(kids) == 2:
            return n.Binary(binary_spelling(tree.ops[i]), self._fexpr(tree, kids[0]),
                            self._fexpr(tree, kids[1]), span=sp, type=ty)
        if kind == _INTEGER_LITERAL:
            v = tree.value(i)
            return n.IntLit(int(v) if v is not None else 0, span=sp, type=ty)
        if kind == _FLOATING_LITERAL:
            v = tree.value(i)
            return n.FloatLit(float(v) if v is not None else 0.0, ty != "float", span=sp, type=ty)
        if kind == _MEMBER_REF:
            base = self._fexpr(tree, kids[0]) if kids else n.Ref("this", "other", span=sp)
            arrow = False
            if kids:
                arrow = self._pointers.get(tree.type_key(kids[0]))
                if arrow is None:
                    arrow = self._is_pointer(tree.cursor(kids[0]))
            key = tree.referenced_key(i)
            name = self._names.get(key) if key is not None else None
            if name is None:
                name = self._spelled(tree.cursor(i))
            return n.Member(base, name, arrow, span=sp, type=ty)
        if kind == _UNARY_OPERATOR and len(kids) == 1:
            op, post = unary_spelling(tree.ops[i])
            return n.Unary(op, self._fexpr(tree, kids[0]), post, span=sp, type=ty)
        if kind == _SUBSCRIPT and len(kids) == 2:
            return n.Index(self._fexpr(tree, kids[0]), self._fexpr(tree, kids[1]), span=sp,
                           type=ty)
        if kind == _CONDITIONAL and len(kids) == 3:
            a, b, d = (self._fexpr(tree, k) for k in kids)
            return n.Cond(a, b, d, span=sp, type=ty)
        if kind in _CAST_IDS and kids:
            return n.Cast(self._fexpr(tree, kids[-1]), True, span=sp, type=ty)
        return self._dispatch(tree.cursor(i), kind, [tree.cursor(k) for k in kids], sp, ty)

    def _expr(self, c: ci.Cursor) -> n.Expr:
        kind = c._kind_id
        # Literals and names (half of all nodes) have no children worth visiting for.
        kids = [] if kind in _LEAF_IDS else children(c)
        # Parentheses and implicit conversions (a third of all nodes) are looked through
        # before anything else is asked of them.
        while kind in _SEE_THROUGH_IDS and len(kids) == 1:
            c = kids[0]
            kind = c._kind_id
            kids = [] if kind in _LEAF_IDS else children(c)
        return self._dispatch(c, kind, kids, self.span(c), self._type_spelling(c))

    def _dispatch(self, c: ci.Cursor, kind: int, kids: list[ci.Cursor], sp: Span,
                  ty: str) -> n.Expr:
        if kind == _DECL_REF:
            return self.ref(c, sp, ty)
        if kind in _BINARY_IDS and len(kids) == 2:
            return n.Binary(binary_op(c), self.expr(kids[0]), self.expr(kids[1]), span=sp, type=ty)
        if kind == _INTEGER_LITERAL:
            v = _literal(c)
            return n.IntLit(int(v) if v is not None else 0, span=sp, type=ty)
        if kind == _FLOATING_LITERAL:
            v = _literal(c)
            return n.FloatLit(float(v) if v is not None else 0.0, ty != "float", span=sp, type=ty)
        if kind == _BOOL_LITERAL:
            return n.BoolLit(bool(_literal(c)), span=sp, type=ty)
        if kind == _STRING_LITERAL:
            return n.StrLit(spelling(c), span=sp, type=ty)
        if kind == _MEMBER_REF:
            base = self.expr(kids[0]) if kids else n.Ref("this", "other", span=sp)
            arrow = bool(kids) and self._is_pointer(kids[0])
            return n.Member(base, self._spelled(c), arrow, span=sp, type=ty)
        if kind == _UNARY_OPERATOR and len(kids) == 1:
            op, post = unary_op(c)
            return n.Unary(op, self.expr(kids[0]), post, span=sp, type=ty)
        if kind == _CALL:
            return self.call(c, kids, sp, ty)
        if kind == _SUBSCRIPT and len(kids) == 2:
            return n.Index(self.expr(kids[0]), self.expr(kids[1]), span=sp, type=ty)
        if kind == _CONDITIONAL and len(kids) == 3:
            a, b, d = (self.expr(k) for k in kids)
            return n.Cond(a, b, d, span=sp, type=ty)
        if kind in _CAST_IDS and kids:
            return n.Cast(self.expr(kids[-1]), True, span=sp, type=ty)
        if kind == _INIT_LIST:
            return n.InitList(tuple(self.expr(k) for k in kids), span=sp, type=ty)
        if kind == _CXX_UNARY:
            v = evaluate(c)
            if isinstance(v, int):
                return n.IntLit(v, span=sp, type=ty)
        return n.OtherExpr(K.from_id(kind).name, tuple(self.any(k) for k in kids), span=sp,
                           type=ty)

    def ref(self, c: ci.Cursor, sp: Span, ty: str) -> n.Expr:
        # A declaration is referenced many times (x, w, threadIdx...): classify it once. The
        # key is the cursor's identity (kind and AST pointers), read from the flattened
        # tree's arrays where there is one, and a reference is spelled as the name of its
        # declaration.
        if c.__class__ is FlatCursor:
            key = c._flat.referenced_key(c._i)
            d = None
        else:
            d = referenced(c)
            key = None if d is None else (d._kind_id, d.data[0] or 0, d.data[1] or 0)
        if key is None:
            return n.Ref(spelling(c), "other", span=sp, type=ty)
        info = self._refs.get(key)
        if info is None:
            if d is None:
                d = referenced(c)
                assert d is not None  # the helper found it
            name = spelling(c)
            info = self._refs[key] = (name, *self._classify(d, name))
        name, kind, decl, value = info
        return n.Ref(name, kind, decl, value, span=sp, type=ty)

    def _classify(self, d: ci.Cursor, name: str) -> tuple[str, str, int | float | None]:
        """(Ref kind, declaration id, folded constant value) of a referenced declaration."""
        dk = d.kind
        if dk == K.ENUM_CONSTANT_DECL:
            return "enum", self.decl(d), d.enum_value
        if dk == K.PARM_DECL:
            return "param", self.decl(d), None
        if dk == K.TEMPLATE_NON_TYPE_PARAMETER:
            # A compile-time constant per instantiation, but with no single value to fold.
            return "template_param", self.decl(d), None
        if dk == K.VAR_DECL:
            decl = self.decl(d)
            if name in BUILTINS and "cudafuse_cuda_shim" in decl:
                return "builtin", name, None
            parent = d.semantic_parent
            local = parent is not None and parent.kind in (
                K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD)
            value = evaluate(d) if d.type.is_const_qualified() else None
            return ("local" if local else "global"), decl, value
        if dk in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD):
            return "function", self.decl(d), None
        return "other", self.decl(d), None

    def call(self, c: ci.Cursor, kids: list[ci.Cursor], sp: Span, ty: str) -> n.Expr:
        if len(kids) >= 2 and kids[1]._kind_id == _CALL and \
                self._spelled(kids[1]) == "__cudaPushCallConfiguration":
            return self.launch(c, kids, sp, ty)
        d = self._callee(c)
        args = tuple(self.expr(a) for a in arguments(c))
        if d is not None and d[0] == _CONSTRUCTOR_ID and len(args) == 1 and \
                args[0].span == sp:
            return args[0]  # an implicit copy/conversion constructor: the value itself
        # A call that depends on a template parameter has no referenced declaration yet; its
        # name is still spelled by the callee expression (an overloaded/unresolved name).
        callee = d[1] if d is not None else spelling(c) or (
            spelling(kids[0]) or _unresolved_name(kids[0]) if kids else "")
        decl = d[2] if d is not None else ""
        callee_expr = None
        if kids and (d is None or d[0] not in _FUNCTION_IDS):
            first = kids[0]
            if first._kind_id != _DECL_REF and len(kids) == len(args) + 1:
                callee_expr = self.expr(first)
        return n.Call(callee, args, decl, callee_expr, span=sp, type=ty)

    def launch(self, c: ci.Cursor, kids: list[ci.Cursor], sp: Span, ty: str) -> n.Expr:
        cfg = arguments(kids[1])
        cfg_exprs = [self.expr(a) for a in cfg]
        # Omitted shared/stream show up as default-argument expressions with no extent.
        explicit = []
        for e, a in zip(cfg_exprs, cfg, strict=True):
            start, end = self.spans.offsets(a)
            if start != end or a._kind_id != _UNEXPOSED_EXPR_ID:
                explicit.append(e)
        grid, block = cfg_exprs[0], cfg_exprs[1]
        shared = explicit[2] if len(explicit) > 2 else None
        stream = explicit[3] if len(explicit) > 3 else None
        d = self._callee(c)
        callee = self.span(kids[0])
        args = tuple(self.expr(a) for a in arguments(c))
        text = self.source.data
        close = text.find(b">>>", callee.end if callee.end else sp.start)
        config = self.source.span(callee.start, close + 3) if close >= 0 and callee.end else sp
        callee_text = self.source.text(callee)
        targs = callee_text[callee_text.index("<"):] if "<" in callee_text else ""
        name = d[1] if d is not None else callee_text.split("<")[0].strip()
        return n.KernelLaunch(name, grid, block, shared, stream, args,
                              d[2] if d is not None else "", targs, callee, config,
                              via_variable=d is not None and d[0] in _VARIABLE_IDS,
                              span=sp, type=ty)

    # ---- statements --------------------------------------------------------------------

    def any(self, c: ci.Cursor) -> n.Node:
        kind = c._kind_id
        return self.stmt(c) if kind == _VAR_DECL_ID or _kind_class(kind) == "stmt" \
            else self.expr(c)

    def stmt(self, c: ci.Cursor) -> n.Stmt:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise LoweringError(f"statements nested more than {MAX_DEPTH} deep",
                                    self.span(c))
            return self._stmt(c)
        finally:
            self._depth -= 1

    def _stmt(self, c: ci.Cursor) -> n.Stmt:
        kind_id = c._kind_id
        if kind_id == _VAR_DECL_ID:  # e.g. the loop variable of a range-based for
            return self.var(c)
        sp = self.span(c)
        if _kind_class(kind_id) == "expr":
            return n.ExprStmt(self.expr(c), span=sp)
        kids = children(c)
        if kind_id == _COMPOUND_ID:
            return n.Compound(tuple(self.stmt(k) for k in kids), span=sp)
        if kind_id == _DECL_STMT_ID:
            return n.DeclStmt(tuple(self.var(k) for k in kids if k._kind_id == _VAR_DECL_ID),
                              span=sp)
        kind = K.from_id(kind_id)
        if kind == K.IF_STMT and 2 <= len(kids) <= 3 and _kind_class(kids[0]._kind_id) == "expr":
            other = self.stmt(kids[2]) if len(kids) == 3 else None
            return n.If(self.expr(kids[0]), self.stmt(kids[1]), other, span=sp)
        if kind == K.FOR_STMT:
            return self.for_stmt(c, kids, sp)
        if kind == K.WHILE_STMT and len(kids) == 2 and _kind_class(kids[0]._kind_id) == "expr":
            return n.While(self.expr(kids[0]), self.stmt(kids[1]), span=sp)
        if kind == K.DO_STMT and len(kids) == 2:
            return n.While(self.expr(kids[1]), self.stmt(kids[0]), True, span=sp)
        if kind == K.RETURN_STMT:
            return n.Return(self.expr(kids[0]) if kids else None, span=sp)
        if kind == K.BREAK_STMT:
            return n.Break(span=sp)
        if kind == K.CONTINUE_STMT:
            return n.Continue(span=sp)
        if kind == K.NULL_STMT:
            return n.Compound((), span=sp)
        if kind in (K.ASM_STMT, K.MS_ASM_STMT):
            return n.Asm(self.source.text(sp), span=sp)
        return n.OtherStmt(kind.name, tuple(self.any(k) for k in kids), span=sp)

    def for_stmt(self, c: ci.Cursor, kids: list[ci.Cursor], sp: Span) -> n.Stmt:
        """libclang omits empty for-header parts; place each child by where the ';'s fall."""
        if c.location.int_data & MACRO_BIT:
            return self._macro_for(kids, sp)
        header = self._for_header(sp)
        if header is None or not kids:
            return n.OtherStmt("FOR_STMT", tuple(self.any(k) for k in kids), span=sp)
        semi1, semi2 = header
        init = cond = inc = None
        for k in kids[:-1]:
            off = self.spans.offsets(k)[0]
            if off < semi1:
                init = self.stmt(k) if k._kind_id == _DECL_STMT_ID else n.ExprStmt(self.expr(k))
            elif off < semi2:
                cond = self.expr(k)
            else:
                inc = self.expr(k)
        return n.For(init, cond, inc, self.stmt(kids[-1]), span=sp)

    def _macro_for(self, kids: list[ci.Cursor], sp: Span) -> n.Stmt:
        """A `for` written by a macro (`CUDA_KERNEL_LOOP(i, n) { ... }`): the file holds the
        invocation, not the header, so there are no ';'s to read. clang keeps a ForStmt's
        parts in a fixed order (init, condition variable, condition, increment, body) and
        libclang skips the absent ones: with all three header parts present, or none, the
        children say which is which. One or two parts (`for (;; ++i)`) are ambiguous, a
        condition variable comes as a VAR_DECL child, and a body written by the macro too
        is no text of the file: those stay an OtherStmt, as before.
        The parts' spans are the invocation's, which is where diagnostics point."""
        head, body = kids[:-1], kids[-1:]
        if body and not _spelled_in_file(body[0]):
            # The body comes from the macro too (`#define SCALE(d, s, n) for (...) d[i] =
            # ...;`): no statement of it is spelled in the file, where the passes edit.
            return n.OtherStmt("FOR_STMT", tuple(self.any(k) for k in kids), span=sp)
        exprs = all(_kind_class(k._kind_id) == "expr" for k in head[1:])
        first_ok = not head or head[0].kind == K.DECL_STMT or \
            _kind_class(head[0]._kind_id) == "expr"
        if not body or len(head) not in (0, 3) or not exprs or not first_ok:
            return n.OtherStmt("FOR_STMT", tuple(self.any(k) for k in kids), span=sp)
        if not head:
            return n.For(None, None, None, self.stmt(body[0]), span=sp)
        init_c, cond_c, inc_c = head
        init = self.stmt(init_c) if init_c.kind == K.DECL_STMT else \
            n.ExprStmt(self.expr(init_c), span=self.span(init_c))
        return n.For(init, self.expr(cond_c), self.expr(inc_c), self.stmt(body[0]), span=sp)

    def _for_header(self, sp: Span) -> tuple[int, int] | None:
        text = self.source.data
        open_ = text.find(b"(", sp.start, sp.end)
        if open_ < 0:
            return None
        depth, semis = 0, []
        for i in range(open_, sp.end):
            ch = text[i:i + 1]
            if ch in (b"(", b"[", b"{"):
                depth += 1
            elif ch in (b")", b"]", b"}"):
                depth -= 1
                if depth == 0:
                    break
            elif ch == b";" and depth == 1:
                semis.append(i)
        return (semis[0], semis[1]) if len(semis) == 2 else None

    def var(self, c: ci.Cursor) -> n.VarDecl:
        kids = children(c)
        storage = {_SPACE_ATTR_IDS[i] for k in kids if (i := k._kind_id) in _SPACE_ATTR_IDS}
        storage_class = raw_storage_class(c)
        if storage_class == _STATIC:
            storage.add("static")
        if storage_class == _EXTERN:
            storage.add("extern")
        spelled, const, sizes = self._var_types.get(self._type_key(c)) or \
            self._var_type(c.type)
        if const:
            storage.add("const")
        init = None
        for k in kids:
            if _kind_class(k._kind_id) == "expr":
                init = self.expr(k)
        # Fresh nodes per variable: the IR never shares a node between two parents.
        dims = tuple(n.IntLit(size) if size >= 0 else None for size in sizes)
        name, decl = self._named(c)
        return n.VarDecl(name, spelled, init, decl, frozenset(storage), dims,
                         span=self.span(c))

    @staticmethod
    def _type_key(c: ci.Cursor) -> tuple[int, int] | None:
        """The key of _var_type's and _param_type's caches for the cursor's type, read from
        a flattened tree without asking libclang for the type (None: not flattened)."""
        return c._flat.type_key(c._i) if c.__class__ is FlatCursor else None

    def _var_type(self, t: ci.Type) -> tuple[str, bool, tuple[int, ...]]:
        """(spelling, const-qualified, array sizes (-1: unknown)) of a variable's type, cached
        per type."""
        key = (t._kind_id, t.data[0] or 0)
        got = self._var_types.get(key)
        if got is None:
            spelled, const = t.spelling, t.is_const_qualified()
            sizes: list[int] = []
            while t.kind in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                             ci.TypeKind.DEPENDENTSIZEDARRAY, ci.TypeKind.VARIABLEARRAY):
                sizes.append(t.get_array_size())
                t = t.element_type
            got = self._var_types[key] = (spelled, const, tuple(sizes))
        return got

    # ---- declarations ------------------------------------------------------------------

    def function(self, c: ci.Cursor) -> Function:
        c = flatten(c) or c  # its cursors' children, extents and types in one C call
        attrs = self.attrs(c)
        space = ("global" if "global" in attrs else "host_device" if {"host", "device"} <= attrs
                 else "device" if "device" in attrs else "host")
        kids = children(c)
        params = tuple(self.param(p) for p in kids if p._kind_id == _PARM_DECL_ID)
        body_cursor = next((k for k in kids if k._kind_id == _COMPOUND_ID), None)
        body = self.stmt(body_cursor) if body_cursor is not None else None
        sp, nsp = self.span(c), self.name_span(c)
        head = self.source.data[sp.start:nsp.start].decode("utf-8", "replace") if nsp.end else ""
        # A commented-out /* __launch_bounds__(256, 3) */, or one under #if 0, is no
        # attribute clang sees: read the head as clang does.
        code = self.code()[sp.start:nsp.start].decode("utf-8", "replace") if nsp.end else ""
        bounds = _launch_bounds(code)
        if not bounds and any(k._kind_id == _UNEXPOSED_ATTR_ID for k in kids):
            # An attribute clang applied that the head does not spell: one written
            # through a macro (`LB`, `C10_LAUNCH_BOUNDS_1(256)`).
            bounds = macro_launch_bounds(code, self.macros())
        tparams = tuple(self.template_param(k) for k in kids if k.kind in (
            K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER,
            K.TEMPLATE_TEMPLATE_PARAMETER))
        parent = c.lexical_parent
        extern_c = (parent is not None and parent.kind == K.LINKAGE_SPEC) or \
            bool(re.match(r'\s*extern\s+"C"', code))
        return Function(
            c.spelling, space, params, c.result_type.spelling, body, sp, nsp,
            self.span(body_cursor) if body_cursor is not None else Span("", 0, 0),
            c.kind == K.FUNCTION_TEMPLATE, tparams, extern_c,
            bounds, head, self.decl(c), _class_of(c),
            clang_namespaces(c), self.initialisers(c, kids))

    def initialisers(self, c: ci.Cursor, kids: list) -> tuple[n.Expr, ...] | None:
        """A constructor's initialisers: the expressions among its children before its body
        (each after the MEMBER_REF or TYPE_REF naming what it initialises). None when the
        object runs more than they spell: a base or member of a class of the program (not of
        the C++ library, whose default constructors touch only the object) that no
        initialiser names, or a member with a default initialiser."""
        if c.kind != K.CONSTRUCTOR:
            return None
        cls = c.semantic_parent
        named = {k.referenced.get_usr() for k in kids if k.kind in (
            K.MEMBER_REF, K.TYPE_REF, K.TEMPLATE_REF) and k.referenced is not None}
        for part in cls.get_children():
            if part.kind == K.CXX_BASE_SPECIFIER:
                t = part.type.get_canonical().get_declaration()
            elif part.kind == K.FIELD_DECL:
                if any(ch.kind.is_expression() for ch in part.get_children()):
                    return None  # `int code = f();`
                t = part.type.get_canonical()
                while t.kind == ci.TypeKind.CONSTANTARRAY:
                    t = t.element_type.get_canonical()
                if t.kind in (ci.TypeKind.POINTER, ci.TypeKind.ENUM, ci.TypeKind.LVALUEREFERENCE,
                              ci.TypeKind.RVALUEREFERENCE) or \
                        ci.TypeKind.BOOL.value <= t.kind.value <= ci.TypeKind.FLOAT128.value:
                    continue  # scalars, pointers: left uninitialised (references: named)
                if t.kind != ci.TypeKind.RECORD:
                    return None  # a template's parameter type: any class
                t = t.get_declaration()
            else:
                continue
            if _in_std(t):
                continue
            if not (t.get_usr() in named or part.kind == K.FIELD_DECL and
                    part.get_usr() in named) or not _no_default_initialisers(t, 0):
                return None  # (an aggregate's `info{x}` runs its members' `= f()` unseen)
        return tuple(self.expr(k) for k in kids if k._kind_id != _COMPOUND_ID and
                     ci.CursorKind.from_id(k._kind_id).is_expression())

    def template_param(self, c: ci.Cursor) -> TemplateParam:
        kind = {K.TEMPLATE_TYPE_PARAMETER: "type", K.TEMPLATE_NON_TYPE_PARAMETER: "value"}.get(
            c.kind, "template")
        sp = self.span(c)
        text = self.source.data[sp.start:sp.end].decode("utf-8", "replace") \
            if sp.file == self.source.path else ""
        default = text.partition("=")[2].strip() if "=" in text else ""
        return TemplateParam(c.spelling, kind, c.type.spelling if kind == "value" else "",
                             default)

    def param(self, c: ci.Cursor) -> Param:
        spelled, is_ptr, pointee_name, pointee_const, is_ref, holds, canonical, floats, \
            members = self._param_types.get(self._type_key(c)) or self._param_type(c.type)
        name, decl = self._named(c)
        return Param(name, spelled, decl, self.span(c), is_ptr, pointee_name,
                     pointee_const, "restrict" in spelled, is_ref, holds, canonical, floats,
                     members)

    def _param_type(self, t: ci.Type
                    ) -> tuple[str, bool, str, bool, bool, bool, str, tuple[str, ...] | None,
                               tuple[str, ...] | None]:
        """(spelling, is pointer, pointee without cv, pointee const, is reference, holds
        pointers, canonical pointee without cv, the pointee's floating members when it is a
        class, its direct members when it is a plain class), per type: kernels repeat a few
        parameter types many times."""
        key = (t._kind_id, t.data[0] or 0)
        got = self._param_types.get(key)
        if got is None and t.get_canonical().kind in _ARRAY_KINDS:
            got = self._param_types[key] = self._array_param_type(t)
        if got is None:
            canon = t.get_canonical()
            is_ptr = canon.kind == ci.TypeKind.POINTER
            is_ref = canon.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)
            pointee = canon.get_pointee() if is_ptr else None
            pointee_name = canonical = ""
            if pointee is not None:
                p = t.get_pointee() if t.kind == ci.TypeKind.POINTER else pointee
                pointee_name = re.sub(r"\b(const|volatile)\b", "", p.spelling).strip()
                canonical = re.sub(r"\b(const|volatile)\b", "",
                                   pointee.get_canonical().spelling).strip()
            got = self._param_types[key] = (
                t.spelling, is_ptr, pointee_name,
                bool(pointee is not None and pointee.is_const_qualified()), is_ref,
                not is_ptr and _holds_pointers(canon, 0), canonical,
                _float_paths(pointee.get_canonical(), 0) if pointee is not None and
                pointee.get_canonical().kind == ci.TypeKind.RECORD else (),
                _plain_members(pointee.get_canonical()) if pointee is not None else None)
        return got

    @staticmethod
    def _array_param_type(t: ci.Type
                          ) -> tuple[str, bool, str, bool, bool, bool, str,
                                     tuple[str, ...] | None, tuple[str, ...] | None]:
        """_param_type's answer for a parameter declared as an array (`double2 x[]`, `const
        float c[4]`): C adjusts its type to a pointer to the element, which libclang does not
        show (the cursor's type is the array as written). A one-dimensional array is that
        pointer, spelled `T *`; an array of arrays (a pointer to rows) is refused as memory
        the analyses do not follow."""
        elem = t.element_type
        canon = elem.get_canonical()
        if canon.kind in _ARRAY_KINDS:
            return (t.spelling, False, "", False, False, True, "", (), None)
        name = re.sub(r"\b(const|volatile)\b", "", elem.spelling).strip()
        return (f"{elem.spelling} *", True, name, elem.is_const_qualified(), False, False,
                re.sub(r"\b(const|volatile)\b", "", canon.spelling).strip(),
                _float_paths(canon, 0) if canon.kind == ci.TypeKind.RECORD else (),
                _plain_members(canon))

    def global_var(self, c: ci.Cursor) -> GlobalVar:
        attrs = self.attrs(c)
        space = next((s for s in ("constant", "shared", "device") if s in attrs), "host")
        return GlobalVar(c.spelling, c.type.spelling, space, self.span(c),
                         c.storage_class == ci.StorageClass.EXTERN, self.decl(c))


def _spelled_in_file(body: ci.Cursor) -> bool:
    """Whether a macro-written loop's body is written in the file: it begins and ends there,
    or it is itself a loop of the same macro whose body is (a 2D macro writes two nested
    `for` headers around the body that follows its invocation)."""
    ext = body.extent
    if ext.end.int_data & MACRO_BIT:
        return False
    if not ext.start.int_data & MACRO_BIT:
        return True
    kids = children(body) if body.kind == K.FOR_STMT else []
    return bool(kids) and _spelled_in_file(kids[-1])


# A parameter declared with one of these is a pointer to its element (C's adjustment).
_ARRAY_KINDS = frozenset({ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                          ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY})
_PLAIN_KINDS = frozenset(k for k in (getattr(ci.TypeKind, name, None) for name in (
    "BOOL", "CHAR_U", "UCHAR", "CHAR16", "CHAR32", "USHORT", "UINT", "ULONG", "ULONGLONG",
    "UINT128", "CHAR_S", "SCHAR", "WCHAR", "SHORT", "INT", "LONG", "LONGLONG", "INT128",
    "FLOAT", "DOUBLE", "LONGDOUBLE", "HALF", "FLOAT16", "BFLOAT16", "ENUM")) if k is not None)


_FLOATING_KINDS = frozenset(k for k in (getattr(ci.TypeKind, name, None) for name in (
    "FLOAT", "DOUBLE", "LONGDOUBLE", "HALF", "FLOAT16", "BFLOAT16")) if k is not None)
_MAX_FLOAT_PATHS = 64
# Classes that hold one floating-point value as bits (cuda_fp16.h, cuda_bf16.h): rounded whole.
_HALF_RECORDS = frozenset(("__half", "__half2", "__nv_bfloat16", "__nv_bfloat162"))


def _float_paths(t: ci.Type, depth: int) -> tuple[str, ...] | None:
    """The member paths (`r`, `pos.x`, `v[2]`) of every floating-point value inside a value of
    canonical class type `t`, so that fused code can round each one as the original's store
    to memory did (emit/rounding.py); () when it holds none; None when one cannot be named
    (a private or anonymous member, a bit-field, a base class, a union, or too many)."""
    paths = _leaf_paths(t, 0)
    return None if paths is None else tuple(p.removeprefix(".") for p in paths)


def _leaf_paths(t: ci.Type, depth: int) -> tuple[str, ...] | None:
    if t.kind in _FLOATING_KINDS or t.kind == ci.TypeKind.RECORD and \
            t.spelling in _HALF_RECORDS:
        return ("",)  # a leaf the rounding overloads take whole
    if t.kind in _PLAIN_KINDS:
        return ()
    if t.kind == ci.TypeKind.CONSTANTARRAY and depth < 8:
        inner = _leaf_paths(t.element_type.get_canonical(), depth + 1)
        if not inner:
            return inner
        if t.element_count * len(inner) > _MAX_FLOAT_PATHS:
            return None
        return tuple(f"[{i}]{p}" for i in range(t.element_count) for p in inner)
    if t.kind != ci.TypeKind.RECORD or depth >= 8:
        return None
    decl = t.get_declaration()
    if decl.kind == ci.CursorKind.UNION_DECL or not decl.is_definition() or any(
            ch.kind == ci.CursorKind.CXX_BASE_SPECIFIER for ch in decl.get_children()):
        return None
    out: list[str] = []
    for f in t.get_fields():
        inner = _leaf_paths(f.type.get_canonical(), depth + 1)
        if inner is None:
            return None
        if not inner:
            continue
        if not f.spelling or f.is_bitfield() or f.access_specifier not in (
                ci.AccessSpecifier.PUBLIC, ci.AccessSpecifier.INVALID):
            return None
        out.extend(f".{f.spelling}{p}" for p in inner)
        if len(out) > _MAX_FLOAT_PATHS:
            return None
    return tuple(out)


def _plain_members(t: ci.Type) -> tuple[str, ...] | None:
    """The direct members of canonical class type `t`, in declaration order, when storing
    each of them stores every byte of a value (so a copy of a local holding the same members
    writes what the member stores wrote): a POD struct or class (no bases, no virtuals,
    default-constructible) whose members are named, public, not bit-fields, not const,
    and fill it without padding. None for anything else (unions, incomplete types)."""
    if t.kind != ci.TypeKind.RECORD or not t.is_pod():
        return None
    decl = t.get_declaration()
    if decl.kind not in (ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL) or \
            not decl.is_definition() or any(
                ch.kind == ci.CursorKind.CXX_BASE_SPECIFIER for ch in decl.get_children()):
        return None
    names: list[str] = []
    size = 0
    for f in t.get_fields():
        ft = f.type.get_canonical()
        if not f.spelling or f.is_bitfield() or ft.is_const_qualified() or \
                f.access_specifier not in (ci.AccessSpecifier.PUBLIC,
                                           ci.AccessSpecifier.INVALID) or ft.get_size() <= 0:
            return None
        names.append(f.spelling)
        size += ft.get_size()
    return tuple(names) if names and size == t.get_size() else None


def _holds_pointers(t: ci.Type, depth: int) -> bool:
    """Whether a by-value parameter of canonical type `t` may carry a pointer (a struct with a
    pointer member, a reference, a type the front end cannot see into): its accesses are
    then memory the analyses do not follow."""
    if t.kind in _PLAIN_KINDS:
        return False
    if t.kind == ci.TypeKind.CONSTANTARRAY:
        return _holds_pointers(t.element_type.get_canonical(), depth + 1)
    if t.kind == ci.TypeKind.RECORD and depth < 8:
        fields = list(t.get_fields())
        decl = t.get_declaration()
        if not fields and not decl.is_definition():
            return True  # incomplete: nothing is known of it
        bases = [b for b in decl.get_children() if b.kind == ci.CursorKind.CXX_BASE_SPECIFIER]
        return any(_holds_pointers(f.type.get_canonical(), depth + 1) for f in fields) or \
            any(_holds_pointers(b.type.get_canonical(), depth + 1) for b in bases)
    return True  # pointers, references, member pointers, dependent and unknown types


def _launch_bounds(code: str) -> str:
    """The arguments of the `__launch_bounds__(...)` in a function's head, as written, with
    their own parentheses (Rodinia's `__launch_bounds__(CTMIN(30, 2), 1)`), or ''."""
    m = re.search(r"__launch_bounds__\s*\(", code)
    if m is None:
        return ""
    depth, i = 1, m.end()
    while i < len(code) and depth:
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return code[m.end():i - 1].strip() if depth == 0 else ""
