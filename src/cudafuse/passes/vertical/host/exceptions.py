"""Throwing an exception class the program derives from a standard one (issue 31).

`struct CudaError : public std::runtime_error { using std::runtime_error::runtime_error; };`
then `throw CudaError(msg)`: clang names the call for the constructor it inherits
(`runtime_error`), declared in the program's file, so it is not a call of the C++ library
by where it is declared. What it runs is the standard class's constructor (which touches
only its arguments, judged on their own as any thrown call's are) and nothing of the
derived class: the class has no members and no constructor of its own. The IR keeps no
class definitions, so that is read from the class's text as clang reads it (comments and
skipped branches blank): its head must name exactly that one standard base, and its body
hold only access labels and the inheriting `using` declaration.

A class with a constructor of its own (members, several bases, a message built by
concatenation) is judged by what its construction evaluates (`thrown_constructor_body`):
the initialisers the front end keeps (`Function.initialisers`), inside a throw as the
object they build is, then the body, as a helper's body is judged (hoststmts.py). The
front end gives no initialisers (None) when the object also runs what no initialiser
spells: a base or member of the program's class left to its default constructor, or a
member's default initialiser; the call then stays unknown.
"""

from __future__ import annotations

import re

from cudafuse.ir import nodes as n
from cudafuse.ir.program import Function, TranslationUnit

# The standard exception classes (<exception>, <stdexcept>, <new>) a program derives from.
STANDARD = frozenset({
    "exception", "runtime_error", "logic_error", "invalid_argument", "domain_error",
    "length_error", "out_of_range", "range_error", "overflow_error", "underflow_error",
    "bad_alloc",
})

_LABEL = re.compile(r"\b(?:public|protected|private)\s*:")


def _enclosing_braces(code: bytes, offset: int) -> tuple[int, int] | None:
    """The `{` and its `}` of the innermost brace pair around `offset` (None if none)."""
    depth, i = 0, offset
    while i > 0:
        i -= 1
        c = code[i:i + 1]
        if c == b"}":
            depth += 1
        elif c == b"{":
            if depth == 0:
                break
            depth -= 1
    else:
        return None
    depth, j = 0, offset
    while j < len(code):
        c = code[j:j + 1]
        if c == b"{":
            depth += 1
        elif c == b"}":
            if depth == 0:
                return i, j
            depth -= 1
        j += 1
    return None


def inherits_standard_constructor(unit: TranslationUnit, call: n.Call) -> bool:
    """Whether `call` constructs a class of the program through the constructor it
    inherits from a standard exception class, and nothing else of the class runs."""
    base = call.callee
    cls = re.sub(r"^(?:const\s+)?(?:\w+::)*", "", call.type.strip())
    decl_file, _, off = call.callee_decl.partition("@")[2].rpartition(":")
    if base not in STANDARD or cls == base or not off.isdigit() or \
            decl_file != unit.path or not re.fullmatch(r"\w+", cls):
        return False
    code = unit.code
    braces = _enclosing_braces(code, int(off))
    if braces is None:
        return False
    start, end = braces
    head_from = max(code.rfind(b";", 0, start), code.rfind(b"}", 0, start),
                    code.rfind(b"{", 0, start)) + 1
    head = code[head_from:start].decode("utf-8", "replace")
    head_ok = re.search(  # (after the text before the class: `#include`s, a `;`)
        rf"(?:^|\s)(?:struct|class)\s+{cls}\s*(?:final\s*)?:\s*(?:(?:public|virtual)\s+)*"
        rf"(?:::)?std::{base}\s*\Z", head)
    body = _LABEL.sub(" ", code[start + 1:end].decode("utf-8", "replace"))
    body_ok = re.fullmatch(rf"\s*using\s+(?:::)?std::{base}::{base}\s*;\s*", body)
    return head_ok is not None and body_ok is not None


def unseen_initialisers(unit: TranslationUnit, fn: Function) -> bool:
    """Whether `fn` is a constructor with a member initialiser list (`: base(m), code(c)`),
    which the IR does not keep with its body: what those initialisers call is then not
    seen, and judging the body alone would miss it."""
    if not fn.parent or fn.name != fn.parent.rpartition("::")[2] or \
            fn.name_span.file != fn.body_span.file or fn.body_span.start <= fn.name_span.end:
        return False
    head = unit.code_of(fn.name_span.file)[fn.name_span.end:fn.body_span.start]
    depth, i = 0, 0
    while i < len(head):  # past the parameter list
        c = head[i:i + 1]
        depth += {b"(": 1, b")": -1}.get(c, 0)
        i += 1
        if c == b")" and depth == 0:
            break
    return re.search(rb"(?<!:):(?!:)", head[i:]) is not None


def thrown_constructor_body(fn: Function) -> n.Compound | None:
    """A constructor of a class of the program, building a thrown exception
    (`throw CudaError(msg, e)` with `CudaError(const char *m, cudaError_t e) :
    std::runtime_error(std::string(m) + cudaGetErrorString(e)), code(e) {}`), as one body
    to judge by what it evaluates: its initialisers, each inside a throw as the object it
    builds is (so the standard base's constructor and the message it is given are judged as
    a thrown expression's), then its own body. What an initialiser writes is a member of the
    new object, the constructor's own. None when the function is no constructor, or its
    object runs something no initialiser spells (`Function.initialisers`)."""
    if fn.initialisers is None or fn.body is None or not fn.parent or \
            fn.name != fn.parent.rpartition("::")[2].partition("<")[0]:
        return None
    inits = tuple(n.ExprStmt(n.OtherExpr("CXX_THROW_EXPR", (e,), span=e.span), span=e.span)
                  for e in fn.initialisers)
    return n.Compound((*inits, fn.body), span=fn.body.span)
