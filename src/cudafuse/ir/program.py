"""Whole-program IR: functions, parameters, globals, launch sites, the translation unit."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from cudafuse.ir.code_text import blank_comments, code_only
from cudafuse.ir.nodes import Compound, Expr, KernelLaunch
from cudafuse.ir.source import NO_SPAN, SourceFile, Span


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    decl: str = ""
    span: Span = NO_SPAN
    is_pointer: bool = False
    pointee: str = ""  # element type without qualifiers, for pointers
    pointee_const: bool = False
    restrict: bool = False
    is_reference: bool = False
    # Not a pointer, but may carry one (a struct with a pointer member, a reference, a type
    # the front end cannot see into): what the kernel reaches through it is not followed.
    holds_pointers: bool = False
    # The pointee's canonical type without cv (`uint8_t` -> `unsigned char`), for sizes.
    pointee_canonical: str = ""
    # A pointer to a class: the member paths of the floating-point values in an element
    # (`r`, `pos.x`, `v[2]`), () for none, None when one cannot be named (frontend/lower.py).
    pointee_float_paths: tuple[str, ...] | None = ()
    # A pointer to a plain class (no bases, no virtuals, default-constructible, no padding):
    # its direct members in declaration order, so that a thread storing each of them at one
    # element is known to store the whole element; None for any other pointee.
    pointee_members: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TemplateParam:
    """A template parameter of a function template: kind is 'type', 'value' (a non-type
    parameter, with its type) or 'template'; default is its default argument's text."""

    name: str
    kind: str
    type: str = ""
    default: str = ""


@dataclass(frozen=True)
class Function:
    """A function definition (or declaration: body None).

    space: global, device, host, host_device.
    """

    name: str
    space: str
    params: tuple[Param, ...]
    return_type: str
    body: Compound | None
    span: Span = NO_SPAN
    name_span: Span = NO_SPAN
    body_span: Span = NO_SPAN
    is_template: bool = False
    template_params: tuple[TemplateParam, ...] = ()
    extern_c: bool = False
    launch_bounds: str = ""  # the text inside __launch_bounds__( ), empty if none
    attributes_text: str = ""  # text between the start of the declaration and the name
    decl: str = ""
    parent: str = ""  # the class of a member function; '' for free functions
    # The namespaces it is a member of, outermost first: (name, inline); '' is anonymous.
    namespaces: tuple[tuple[str, bool], ...] = ()
    # A constructor's member and base initialisers (`: std::runtime_error(m), code(e)`): the
    # expressions each evaluates, in order (what each writes is the new object's own). None
    # for other functions, and for a constructor whose object also runs what no initialiser
    # spells (a base or member of the program's classes left to its default constructor, a
    # member's default initialiser).
    initialisers: tuple[Expr, ...] | None = None

    @property
    def is_kernel(self) -> bool:
        return self.space == "global"


@dataclass(frozen=True)
class GlobalVar:
    """A namespace-scope variable; space: constant, device, shared, managed, host."""

    name: str
    type: str
    space: str
    span: Span = NO_SPAN
    is_extern: bool = False
    decl: str = ""


@dataclass
class TranslationUnit:
    """One parsed .cu file: its functions in source order, globals, and where they came from."""

    path: str
    source: SourceFile
    functions: list[Function] = field(default_factory=list)
    globals: list[GlobalVar] = field(default_factory=list)
    # host function name -> its launches, in source order
    launches: dict[str, list[KernelLaunch]] = field(default_factory=dict)
    includes: list[str] = field(default_factory=list)  # every file the parse read, in order
    skipped: list[tuple[Span, str]] = field(default_factory=list)  # (where, why) for warnings
    # Member functions of the file's classes (Function.parent set), kept apart so that
    # `functions` and lookups by name see free functions only.
    methods: list[Function] = field(default_factory=list)
    # Host functions of the user's headers that the file's host code calls (an error-check
    # helper's definition): only for judging what a call between launches does
    # (frontend/header_callees.py); not part of the file.
    header_functions: list[Function] = field(default_factory=list)
    # Member functions that launch kernels, as host functions named `Class::method`
    # (frontend/methods.py), and where code generated for a host function must go when
    # not before its definition (a method defined in its class's body: before the class).
    method_hosts: list[Function] = field(default_factory=list)
    anchors: dict[str, int] = field(default_factory=dict)
    derived: set[str] = field(default_factory=set)  # classes with member functions and bases
    # The user's included files whose kernels (and device code) are lowered as the file's own
    # (frontend/included_kernels.py), by the name their spans carry: their text, for reading.
    sources: dict[str, SourceFile] = field(default_factory=dict)
    included_at: dict[str, int] = field(default_factory=dict)  # each one's #include's offset
    # Byte ranges of the main file the preprocessor skipped (clang's skipped ranges).
    inactive: list[tuple[int, int]] = field(default_factory=list)
    # Launches of kernel templates (by their callee's offset): the concrete kernel their
    # instantiation is, or why none was made (frontend/instantiate.py; parsed for fusion).
    instances: dict[int, Function | str] = field(default_factory=dict)
    # The templates (realpath of their file, name) of which such a copy was made.
    instantiated: set[tuple[str, str]] = field(default_factory=set)
    # Host function templates with launches (by where they start): the byte ranges of the
    # explicit specialisations written into the parsed text for the instantiations the file
    # uses, or why none was (frontend/host_instances.py; parsed for fusion).
    host_instances: dict[int, list[tuple[int, int]] | str] = field(default_factory=dict)

    @functools.cached_property
    def code(self) -> bytes:
        """The main file's bytes as clang reads them: comments and skipped branches blanked
        (offsets kept; ir/code_text.py). Text checks read this, never `source.data`."""
        return code_only(self.source.data, self.inactive)

    def code_of(self, file: str) -> bytes:
        """`code` for the main file; for a file whose code was lowered too, its bytes with
        comments blanked (its skipped ranges are not recorded)."""
        return self.code if file == self.path else blank_comments(self.source_of(file).data)

    def code_text(self, span: Span) -> str:
        """The text of `span` as clang reads it (comments and skipped branches blank)."""
        return self.code_of(span.file)[span.start:span.end].decode("utf-8", "replace")

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel and f.body is not None]

    def hosts(self) -> list[Function]:
        """Host functions whose launches are analysed (free functions and method_hosts
        that launch kernels, defined, not kernels), in source order."""
        found = [f for f in (*self.functions, *self.method_hosts)
                 if f.body is not None and f.space != "global" and f.name in self.launches]
        return sorted(found, key=lambda f: f.span.start)

    def anchor(self, host: Function) -> int:
        """Where code generated for `host` may be inserted (at namespace scope)."""
        return self.anchors.get(host.name, host.span.start)

    def function(self, name: str) -> Function | None:
        """The first defined free function named `name`."""
        # (by an index made again when `functions` is replaced or changes length: asked
        # per call of every kernel by the cost model, a scan made long files quadratic)
        fns = self.functions
        index = self.__dict__.get("_by_name")
        if index is None or index[0] is not fns or index[1] != len(fns):
            found: dict[str, Function] = {}
            for f in fns:
                if f.body is not None:
                    found.setdefault(f.name, f)
            index = self.__dict__["_by_name"] = (fns, len(fns), found)
        return index[2].get(name)

    def text(self, span: Span) -> str:
        return self.source_of(span.file).text(span)

    def source_of(self, file: str) -> SourceFile:
        """The text spans of `file` index: an included file's whose code was lowered, else
        the main file's."""
        return self.sources.get(file, self.source) if file != self.path else self.source

    def main_end(self, span: Span) -> int:
        """Where the text of `span` ends in the main file: for a lowered included file, at
        the #include that brings it in (the main file's)."""
        return span.end if span.file == self.path else self.included_at.get(span.file, span.end)

    def owns(self, span: Span) -> bool:
        """Whether `span` lies in text the unit holds (the main file or a lowered header)."""
        return span.file == self.path or span.file in self.sources

    def callee(self, decl: str) -> Function | None:
        """The definition (free function or method) a Call.callee_decl / Ref.decl names."""
        # (by an index of the definitions, made again when either list is replaced or
        # changes length: asked per call of a host function, a scan of every function
        # made a file of a thousand kernels quadratic)
        fns, methods = self.functions, self.methods
        index = self.__dict__.get("_callees")
        if index is None or index[0] is not fns or index[1] != len(fns) or \
                index[2] is not methods or index[3] != len(methods):
            found: dict[str, Function] = {}
            for f in (*fns, *methods):
                if f.body is not None:
                    found.setdefault(f.decl, f)
            index = self.__dict__["_callees"] = (fns, len(fns), methods, len(methods), found)
        return index[4].get(decl)
