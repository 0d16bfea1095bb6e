"""Argument checking: every public operation declares PyTorch's signature as its own Python
parameters, and one decorator checks each call against it before any NumPy code runs.

PyTorch declares every operation once (`native_functions.yaml`) and checks each Python call
against those declarations in one place (its "python arg parser"), so that `torch.ones(2.5)`,
`t.sum(dim="a")` or `torch.relu([1])` all fail the same way, with a TypeError that names the
argument and what was expected. tensorgrad does the same, with the declarations in Python:

    @declared                       on an operation: its parameters are PyTorch's (names,
    def mul(input: Tensor,          defaults, keyword-only marks), annotated with the types
            other: Tensor, *,       PyTorch's messages print (Tensor, int, Number, Ints, ...).
            out: Tensor = None):    The function stays as it is: the library calls it directly
    checked(mul)                    the checked form, made once, where the public name is
                                    exported (tensorgrad/__init__.py: `tg.mul`, `tg.zeros`; the
                                    door at the end of nn/functional.py and nn/init.py:
                                    `F.softmax`); `@checked` on a public function that nothing
                                    in the library calls (`tg.round_`, Tensor's own methods)
    @overload                       an operation with several of PyTorch's overloads declares
    def max(input: Tensor): ...     each as a stub first; `@declared` (or `@checked`) on the
                                    real function collects them, once, at definition
    method(function)                the function as a Tensor method: its overloads without
                                    `input` and `out` (`@checked(method=True)` for a method with
                                    overloads of its own)
    declare(stub)                   a declaration checked by hand: `.match(args, kwargs)`
                                    (nn.functional, nn.Linear, ...)
    @declared(python=True)          a function PyTorch writes in Python (F.mse_loss, init.ones_,
                                    torch.norm): its tensors declared `Tensor`, what PyTorch's
                                    Python code takes loosely `object`, a setting it compares
                                    without a check `Real`; where PyTorch fails inside with an
                                    internal error (F.mse_loss([1.], t), SGD(lr="a")), the call
                                    gets the message of the declaration instead
    Signatures.parse                the parser: binds a call to an overload, or raises
                                    PyTorch's error (its texts are in autograd/messages.py)

Checking costs time on every call, so a call first meets a *guard*: a small function made from
each overload that answers "is this call plainly fine?" with a few `type(...) is` tests. Only
when no guard says yes does the full parser run, to find the error and word it as PyTorch
does. The operators (`t + 1`) are not checked this way at all: they test their operand's type
inline and call the operation itself, as the rest of the library does.
Value checks that need the data (a dim out of range, a negative size) stay with the operation,
at the top of its body; their texts live in `autograd/messages.py` too.
"""

import functools
import inspect
import keyword
import operator
import types

import numpy as np

from . import dtypes, numpy_errors
from .autograd import messages
from .device import check_device, device
from .core.tensor import Tensor


# -- the vocabulary of declarations ----------------------------------------------------------------
class Declared:
    """A parameter type that Python has no name for, named as PyTorch's messages print it.

    `X | None` also accepts None (PyTorch's `X?`); `int | Ints` is an int or a tuple of ints
    (a dim: PyTorch's `int[1]`, printed `tuple of ints`); `*size: Ints` takes the ints one by one
    or as one tuple (`ones(2, 3)`, `ones((2, 3))`)."""

    __slots__ = ("name", "single_int", "optional")

    def __init__(self, name, single_int=False, optional=False):
        self.name, self.single_int, self.optional = name, single_int, optional

    def __or__(self, other):
        if other is None:
            return Declared(self.name, self.single_int, optional=True)
        return NotImplemented

    def __ror__(self, other):
        if other is int and self.name == "tuple of ints":
            return Declared(self.name, single_int=True, optional=self.optional)
        return NotImplemented

    def __repr__(self):
        return self.name


Number = Declared("Number")  # a Python number, or a 0-d tensor (PyTorch's Scalar)
Ints = Declared("tuple of ints")  # a tuple or list of ints (a size, dims)
Tensors = Declared("tuple of Tensors")
Dtype = Declared("tensorgrad.dtype")
Device = Declared("tensorgrad.device")
Layout = Declared("tensorgrad.layout")
MemoryFormat = Declared("tensorgrad.memory_format")
Generator = Declared("tensorgrad.Generator")
Storage = Declared("tensorgrad.Storage")  # (tensorgrad has no storages: named in messages only)
Names = Declared("tuple of names")
Real = Declared("a number")  # a setting that PyTorch's Python code compares (p < 0, lr < 0.0)
_CLASS_NAMES = {Tensor: "Tensor", int: "int", float: "float", bool: "bool", str: "str",
                object: "object"}
_NO_DEFAULT = inspect.Parameter.empty


# -- one parameter and one overload ----------------------------------------------------------------
class Parameter:
    """One declared parameter: its type, name, default, and how it may be passed."""

    __slots__ = ("type", "name", "text", "has_default", "default_is_none", "keyword_only",
                 "single_int", "varargs", "lone_varargs", "numbers_ok")

    def __init__(self, type, name, default=_NO_DEFAULT, keyword_only=False,  # noqa: A002
                 optional=False, single_int=False, varargs=False):
        self.type, self.name = type, name
        self.has_default = default is not _NO_DEFAULT
        self.text = f"{type} {name}" + (f" = {default!r}" if self.has_default else "")
        self.default_is_none = default is None or optional  # None is accepted
        self.keyword_only = keyword_only
        self.single_int, self.varargs = single_int, varargs
        self.lone_varargs = varargs  # (set by its Overload: the only positional parameter?)
        self.numbers_ok = False  # a Python number where a Tensor is declared (t.add(2))

    @classmethod
    def of(cls, parameter):
        """A Python parameter (of a declaration) as PyTorch declares it."""
        annotation = parameter.annotation
        optional = False
        if isinstance(annotation, types.UnionType):  # `Tensor | None`, `bool | None`
            kinds = [a for a in annotation.__args__ if a is not type(None)]
            annotation, optional = kinds[0], len(kinds) < len(annotation.__args__)
        if isinstance(annotation, Declared):
            name, single_int = annotation.name, annotation.single_int
            optional = optional or annotation.optional
        elif annotation in _CLASS_NAMES:
            name, single_int = _CLASS_NAMES[annotation], False
        else:
            raise TypeError(f"parameter {parameter.name!r}: no PyTorch type declared")
        argument = parameter.name
        if argument.endswith("_") and keyword.iskeyword(argument[:-1]):
            argument = argument[:-1]  # `from_` declares PyTorch's `from`
        return cls(name, argument, parameter.default,
                   keyword_only=parameter.kind == parameter.KEYWORD_ONLY, optional=optional,
                   single_int=single_int, varargs=parameter.kind == parameter.VAR_POSITIONAL)

    def copy(self):
        twin = object.__new__(Parameter)
        for slot in Parameter.__slots__:
            setattr(twin, slot, getattr(self, slot))
        return twin

    def accepts(self, value):
        """PyTorch's test of one argument against its declared type."""
        if value is None and self.default_is_none:
            return True
        check = _TYPE_CHECKS[self.type]
        if self.numbers_ok and _is_number(value):
            return True
        if self.type == "tuple of ints":
            return check(value) or (self.single_int or self.lone_varargs) and (
                _is_int(value) or _is_one_int_tensor(value))
        return check(value)


class Overload:
    """One way to call an operation, such as `sum(Tensor input, tuple of ints dim, ...)`."""

    def __init__(self, params):
        self.params = params
        self.parts = []  # as PyTorch prints it: "Tensor input", "*", "bool keepdim = False"
        for param in params:
            if param.keyword_only and "*" not in self.parts:
                self.parts.append("*")
            self.parts.append(param.text)
        self.max_positional = sum(not p.keyword_only for p in self.params)
        self.names = {p.name for p in self.params}
        varargs = bool(self.params) and self.params[0].varargs and self.max_positional == 1
        # PyTorch's parser takes sizes one by one (`t.reshape(2, 3)`, `t.reshape(6)`) only for
        # the one positional parameter: `reshape(t, 6)` is refused ("must be tuple of ints")
        for param in self.params:
            param.lone_varargs = param.varargs and varargs
        self.most_positional = float("inf") if varargs else self.max_positional
        self.min_args = sum(not p.has_default for p in self.params)
        self.max_args = len(self.params)
        self.display = "(" + ", ".join(self.parts) + ")"
        self.guard = _make_guard(self)

    @classmethod
    def of(cls, stub, method=False):
        """The overload a Python function declares (without `self`, for a method's stub)."""
        parameters = list(inspect.signature(stub).parameters.values())
        if method:
            parameters = parameters[1:]
        return cls([Parameter.of(p) for p in parameters])

    def method_form(self):
        """This overload as a Tensor method: without the tensor itself and without `out` (None
        for an overload whose first parameter is not a tensor, such as pow(Number self, ...))."""
        if not self.params or self.params[0].type != "Tensor":
            return None
        return Overload([p.copy() for p in self.params[1:] if p.name != "out"])


# -- the declarations, collected at definition -----------------------------------------------------
FUNCTIONS = {}  # name -> Signatures: every declared operation, as a function
METHODS = {}  # name -> Signatures: Tensor methods with overloads of their own
# "module.qualified name" -> Signatures: functions PyTorch writes in Python (nn.functional,
# nn.init, torch.norm, torch.split, the modules' forward and the optimizers' constructors), and
# the C functions they call; apart, because their names repeat the operations' (F.sigmoid)
PYTHON_FUNCTIONS = {}
_STUBS = {}  # (module, qualified name) -> the @overload stubs waiting for their function

# Operations whose Tensor arguments may also be Python numbers (`t.add(2)`), as in PyTorch's
# should_allow_numbers_as_tensors.
NUMBERS_AS_TENSORS = {"add", "sub", "mul", "div", "add_", "sub_", "mul_", "div_", "copy_",
                      "floor_divide", "floor_divide_"}
# Operations with overloads that PyTorch keeps but does not show (the deprecated
# add(Tensor input, Number alpha, Tensor other)): with them, a call that fits no overload by its
# number of arguments gets "received an invalid combination of arguments", as in PyTorch.
HIDDEN_OVERLOADS = {"add", "sub", "add_", "sub_", "copy_"}


def overload(stub):
    """Declare one of an operation's overloads (as typing.overload does): a stub whose
    parameters are that overload's. The `@checked` function of the same name below it collects
    its stubs, in order."""
    _STUBS.setdefault((stub.__module__, stub.__qualname__), []).append(stub)
    return stub


def declare(function, *, name=None, method=False, like=None, of_function=False, python=False,
            reads_size=()):
    """The Signatures `function` declares: its @overload stubs, or else its own parameters (or,
    with `like`, another declaration's overloads), registered under `name` (with python=True,
    among the PYTHON_FUNCTIONS, under its module and qualified name; `reads_size`: see
    `read_sizes`)."""
    name = name or function.__name__
    stubs = _STUBS.pop((function.__module__, function.__qualname__), None)
    if isinstance(like, types.FunctionType) and not hasattr(like, "signatures"):
        overloads = [Overload.of(like, method)]  # a stub declaring another's parameters
    elif like is not None:
        overloads = [Overload([p.copy() for p in o.params]) for o in _signatures_of(like).overloads]
    elif stubs:
        overloads = [Overload.of(stub, method) for stub in stubs]
    elif method and name in FUNCTIONS and (of_function or not _annotated(function)):
        overloads = [m for m in (o.method_form() for o in FUNCTIONS[name].overloads) if m]
    else:
        overloads = [Overload.of(function, method)]
    declared = Signatures(name, overloads, method)
    declared.reads_size = tuple(reads_size)
    if python:
        as_name = "" if name == function.__name__ else f" as {name}"  # (a stub of another's)
        PYTHON_FUNCTIONS[f"{function.__module__}.{function.__qualname__}{as_name}"] = declared
    else:
        (METHODS if method else FUNCTIONS)[name] = declared
    return declared


def _annotated(function):
    return any(p.annotation is not p.empty for p in inspect.signature(function).parameters.values())


def _signatures_of(value):
    return value if isinstance(value, Signatures) else value.signatures


def signatures(name, method=False):
    """The overloads of a declared function (or Tensor method), by name."""
    if method and name not in METHODS and name in FUNCTIONS:  # (a method with no arguments)
        declare(_no_function, name=name, method=True, of_function=True)
    return (METHODS if method else FUNCTIONS)[name]


def _no_function():
    """(a method declared by its function's overloads only: nothing of its own)"""


def check(name, args, kwargs=None, method=False):
    """Check one call by hand against a declaration, by name (where a decorator does not fit:
    nn.functional's Python functions check what PyTorch's C functions beneath them check)."""
    return signatures(name, method).match(args, kwargs or {})


def checked_values(name, args, kwargs=None, method=False):
    """Check one call by hand, as `check` does, and return its arguments as the operation takes
    them (see `converted`): a 0-d tensor given as an int comes back as that int. A call that a
    guard passes holds plain values already, and comes back as it is: one check, no second
    walk over its arguments."""
    kwargs = kwargs or {}
    declared = signatures(name, method)
    if declared.guarded(args, kwargs):
        return args, kwargs
    return converted(declared.parse(args, kwargs), args, kwargs)


def declared_names():
    """Every declared function and method name."""
    return sorted(set(FUNCTIONS) | set(METHODS))


def declared(function=None, *, name=None, like=None, python=False, reads_size=()):
    """Declare an operation's signature (its @overload stubs, or else its own annotated
    parameters; `like=`: another declaration's overloads) and return the function itself,
    unchecked, with the declaration as `function.signatures`. The library calls it as it is;
    `checked(function)` makes its checked form where its public name is exported.
    reads_size=: the tensors whose `.size()` PyTorch's Python code reads first (`read_sizes`)."""
    if function is None:
        return functools.partial(declared, name=name, like=like, python=python,
                                 reads_size=reads_size)
    function.signatures = declare(function, name=name, like=like, python=python,
                                  reads_size=reads_size)
    function.declared_python = python
    return function


def checked(function=None, *, name=None, method=False, like=None, of_function=False,
            python=False, complex_into=False):
    """Decorate a public operation so that every call is checked against its declaration (its
    @overload stubs, or else its own annotated parameters) before the function runs.

    method=True: a Tensor method, declared by its stubs or its own annotations (after `self`),
    or else (and always with of_function=True) by the function of the same name without
    `input` and `out`. like=: the overloads of another operation (`clip` has clamp's), or of
    a stub function (for a method defined elsewhere, such as tensor.py's Tensor.size).
    python=True: a function PyTorch writes in Python, declared among the PYTHON_FUNCTIONS; a
    call that does not fit its Python signature gets Python's own words, as in PyTorch.
    complex_into=True: an in-place arithmetic method, whose complex number reaches it as it is
    (`_keeping_complex`), to be refused at the cast into the tensor (tensor_methods.py: `_into`).

    A call pays the guards' type tests; a call with keywords also one set test, to see that
    the function takes them as they are. Only a failing call runs the parser."""
    if function is None:
        return functools.partial(checked, name=name, method=method, like=like,
                                 of_function=of_function, python=python, complex_into=complex_into)
    if not (method or name or like) and isinstance(getattr(function, "signatures", None), Signatures):
        declared = function.signatures  # @declared where it was defined: checked at the door
        python = function.declared_python
    else:
        declared = declare(function, name=name, method=method, like=like,
                           of_function=of_function, python=python)
    overloads = declared.overloads
    if not python and all(not o.params for o in overloads):
        return takes_no_arguments(function, method)  # no arguments (beyond the tensor)
    parameters = inspect.signature(function).parameters
    takes = frozenset(key for key, p in parameters.items() if p.kind in (
        p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and key != "out")  # (out= is refused)
    if any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
        takes = None
    # overloads that name a positional parameter otherwise than the function does at that
    # place (arange's `end` first, where the function has `start`): given by keyword, it goes
    # by position
    positional = [key for key, p in parameters.items() if p.kind in (
        p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)][1 if method else 0:]
    renamed = frozenset(o for o in overloads if [p.name for p in o.params if not p.keyword_only]
                        != positional[:o.max_positional])

    @functools.wraps(function)
    def check_then_call(*args, **kwargs):  # every call of a public operation passes here
        call_args = args[1:] if method else args
        for overload in overloads:
            if len(call_args) > overload.most_positional or (
                    kwargs and not overload.names >= kwargs.keys()):
                continue  # (a cheap test first: a guard that cannot bind raises, which is slow)
            try:
                if overload.guard(*call_args, **kwargs):
                    break
            except TypeError:
                pass
        else:
            if python and not _binds(parameters, args, kwargs):
                return function(*args, **kwargs)  # Python's own words, as PyTorch's Python code
            overload = _parsed(declared, call_args, kwargs)
            kwargs = numpy_names(kwargs, overloads)
            keep = _refuse_complex_operand(declared.name, args, kwargs)
            call_args, kwargs = converted(overload, call_args, kwargs, complex_into or keep)
            args = (args[0], *call_args) if method else tuple(call_args)
        if kwargs and takes is not None and (not takes >= kwargs.keys() or overload in renamed):
            args, kwargs = _keywords_it_lacks(function, overload, args, kwargs, method)
        token = numpy_errors.state.set(numpy_errors.QUIET)  # exp(1000) is inf, silently
        try:
            return function(*args, **kwargs)
        finally:
            numpy_errors.state.reset(token)

    check_then_call.signatures = declared
    return check_then_call


# NumPy's names that PyTorch's parser takes for its own (`t.sum(axis=1, keepdims=True)`)
_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
                "x2": "other"}


def numpy_names(kwargs, overloads):
    """A call's keywords with NumPy's names as PyTorch's, where no overload has a parameter of
    that name (only on the parser's path: a call with them never passes a guard)."""
    if not kwargs or _NUMPY_NAMES.keys().isdisjoint(kwargs):
        return kwargs
    own = set().union(*(o.names for o in overloads))
    return {_NUMPY_NAMES[key] if key in _NUMPY_NAMES and key not in own
            and _NUMPY_NAMES[key] not in kwargs else key: value for key, value in kwargs.items()}


def _parsed(declared, args, kwargs):
    """The overload a call fits, its NumPy keywords read as PyTorch's (`t.sum(axis=1)`); a call
    that fits none is refused naming its keywords as given (`t.all(x=1)`: "got (x=int, )")."""
    translated = numpy_names(kwargs, declared.overloads)
    try:
        return declared.parse(args, translated)
    except TypeError:
        if translated is not kwargs:
            declared.parse(args, kwargs)  # (raises, in the call's own words)
        raise


def takes_no_arguments(function, method=True):
    """An operation that takes nothing (`tg.is_grad_enabled()`) or nothing but the tensor
    (`x.exp()`, `x.item()`), as PyTorch's C functions and methods of that kind: anything more is
    refused in their words, not Python's, and an `out=` is never taken and ignored. (`x.exp`
    itself is a function of `input` and `out`.)"""
    name = ("TensorBase." if method else "tensorgrad.") + function.__name__
    own = 1 if method else 0  # (the tensor a method is called on)

    @functools.wraps(function)
    def without_arguments(*args, **kwargs):
        if kwargs:
            raise TypeError(messages.NO_KEYWORD_ARGUMENTS.format(name=name))
        if len(args) > own:
            raise TypeError(messages.NO_ARGUMENTS.format(name=name, given=len(args) - own))
        token = numpy_errors.state.set(numpy_errors.QUIET)  # x.exp() of 1000 is inf, silently
        try:
            return function(*args)
        finally:
            numpy_errors.state.reset(token)

    return without_arguments


def read_sizes(declared, args, kwargs):
    """A function PyTorch writes in Python that reads its tensors' `.size()` before anything
    checks them (a loss's `if target.size() != input.size()`) fails on a value that is not a
    tensor there, in Python's words, which are PyTorch's: `F.mse_loss(t, 1.0)` is an
    AttributeError, "'float' object has no attribute 'size'", and a NumPy value, whose `size` is
    an int, "'int' object is not callable". `declared.reads_size`: the parameters in the order
    PyTorch's code reads them; a None where None is the default is not read (`if weight is not
    None`). (Run by the parser, first, for such a declaration: a call its guards pass holds
    tensors there.)"""
    params = declared.overloads[0].params
    positional = [p for p in params if not p.keyword_only]
    given = {p.name: value for p, value in zip(positional, args)} | kwargs
    for name in declared.reads_size:
        if name not in given:
            continue
        value = given[name]
        default_none = next(p for p in params if p.name == name).default_is_none
        if isinstance(value, Tensor) or value is None and default_none:
            continue
        size = getattr(value, "size", None)
        if size is None and isinstance(value, type):
            raise AttributeError(messages.NO_SIZE_OF_TYPE.format(name=value.__name__))
        if size is None:
            raise AttributeError(messages.NO_SIZE.format(type_name=type(value).__name__))
        if not callable(size):
            raise TypeError(messages.NOT_CALLABLE.format(type_name=type(size).__name__))


def _binds(parameters, args, kwargs):
    """Does a call fit a Python signature's parameters (their number and names)?"""
    try:
        inspect.Signature(list(parameters.values())).bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def method(function, name=None):
    """A declared function as a Tensor method: the same operation, checked against the
    function's overloads without `input` and `out` (`t.sum(1)` is `sum(t, 1)`)."""
    return checked(function, name=name or function.signatures.name, method=True,
                   of_function=True)


# Keyword arguments PyTorch takes that mean nothing in tensorgrad (one device, one layout)
_IGNORED = {"pin_memory", "layout", "memory_format", "non_blocking", "names", "implicit",
            "sparse_grad"}


def _keywords_it_lacks(function, overload, args, kwargs, method):
    """A call with a keyword that the matched overload declares and the Python function does
    not take as it is: `out=` (refused), what means nothing here (layout=, pin_memory=),
    `size=` for the sizes the function takes one by one (`ones(size=(2,))`), or a name that
    only this overload gives its positional parameter (`where(c, self=1., other=t)`,
    `arange(end=3)` where the function's first parameter is `start`): passed by position.
    One Python signature cannot have every overload's names; PyTorch's parser binds them so."""
    parameters = inspect.signature(function).parameters
    positional = [key for key, p in parameters.items() if p.kind in (
        p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    declared_positional = [p for p in overload.params if not p.keyword_only]
    offset = 1 if method else 0
    args, rest = list(args), {}
    order = [p.name for p in overload.params]

    def taken_as_keyword(key, declared):
        taken = key in parameters and parameters[key].kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        if taken and declared is not None and not declared.keyword_only:
            index = declared_positional.index(declared) + offset
            taken = index < len(positional) and positional[index] == key
        return taken

    # once one positional parameter given by keyword goes by position (`flip(dims=..., input=t)`
    # for flip(input, *dims)), those before it go by position too
    by_position = any(not taken_as_keyword(p.name, p) for p in declared_positional
                      if p.name in kwargs)
    for key, value in sorted(kwargs.items(), key=lambda item: (
            order.index(item[0]) if item[0] in order else len(order))):
        declared = next((p for p in overload.params if p.name == key), None)
        taken = taken_as_keyword(key, declared) and not (
            by_position and declared is not None and not declared.keyword_only)
        if key == "out":
            raise TypeError(messages.NO_OUT_ARGUMENT.format(name=function.__name__))
        if taken:
            rest[key] = value
        elif declared is not None and not declared.keyword_only:
            args.insert(min(declared_positional.index(declared) + offset, len(args)), value)
        elif key == "device":
            check_device(value)
        elif key == "pin_memory" and value:
            raise RuntimeError(messages.PIN_MEMORY)
        elif key not in _IGNORED and value is not None:
            raise NotImplementedError(messages.UNSUPPORTED_KEYWORD.format(
                name=function.__name__, keyword=key))
    return args, rest


class Signatures:
    """All overloads of one operation (as a function, or as a method)."""

    def __init__(self, name, overloads, method=False):
        self.name = name
        self.method = method
        self.overloads = overloads
        self.reads_size = ()  # (set by `declare`: see read_sizes)
        if name in NUMBERS_AS_TENSORS:
            first = 1 if not method and name.endswith("_") else 0  # (torch.add(1, t) too)
            for overload in overloads:
                for param in overload.params[first:]:
                    if param.type == "Tensor":
                        param.numbers_ok = True
                overload.guard = _make_guard(overload)

    def match(self, args, kwargs=None):
        """The overload this call fits: found by the guards when the call is plainly valid,
        else by the parser, which raises PyTorch's error when none fits."""
        kwargs = kwargs or {}
        return self.guarded(args, kwargs) or self.parse(args, kwargs)

    def guarded(self, args, kwargs):
        """The overload whose guard says this call is plainly valid, or None."""
        for overload in self.overloads:
            if len(args) > overload.most_positional or kwargs and not overload.names >= kwargs.keys():
                continue  # (a cheap test first: a guard that cannot bind raises, which is slow)
            try:
                if overload.guard(*args, **kwargs):
                    return overload
            except TypeError:
                pass
        return None

    def parse(self, args, kwargs):
        """Check a call; return the overload it matches, or raise PyTorch's error."""
        if self.reads_size:
            read_sizes(self, args, kwargs)
        for overload in self.overloads:
            if _bind(self.name, overload, args, kwargs, raise_error=False):
                _check_lists(self.name, overload, args, kwargs)
                _check_int_ranges(self.name, overload, args, kwargs)
                return overload
        total = len(args) + len(kwargs)
        plausible = [o for o in self.overloads if o.min_args <= total <= o.max_args]
        if len(self.overloads) == 1 and self.name not in HIDDEN_OVERLOADS or len(plausible) == 1:
            overload = self.overloads[0] if len(self.overloads) == 1 else plausible[0]
            _bind(self.name, overload, args, kwargs, raise_error=True)
            _check_lists(self.name, overload, args, kwargs)
            _check_int_ranges(self.name, overload, args, kwargs)
            return overload
        raise TypeError(invalid_combination(self.name, self.overloads, args, kwargs))


# -- what each declared type accepts ---------------------------------------------------------------
# Each kind of value is decided here, once, as PyTorch's argument parser (python_arg_parser.cpp)
# decides it, and every declared parameter of every operation gets the same answer:
#   int        a Python int or a NumPy integer (not a bool), or a 0-d integer tensor that does
#              not require grad: `arange(tensor(3))`, `reshape(tensor(3), 2)`
#   float      any Python or NumPy real number or bool, or a 0-d tensor that does not require
#              grad
#   Number     that, or a complex number or a bool of either kind (PyTorch's Scalar)
#   bool       a Python bool only: NumPy's bool is refused ("must be bool, not numpy.bool")
#   dtype      a dtype, or Python's `int`, `float`, `bool` (int64, float64, bool); NumPy's
#              types are refused
# and `converted` (below) hands the operation the plain Python value it was given the kind of.
def _is_device(value):
    return isinstance(value, device)


def _is_int(value):
    return (type(value) is int or isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_))) or _is_index_tensor(value)


def _is_index_tensor(value):
    """A 0-d integer tensor that does not require grad: an int to PyTorch's parser."""
    return (isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu"
            and not value.requires_grad)


def _is_scalar_tensor(value):
    """A 0-d tensor that does not require grad: a number to PyTorch's parser."""
    return isinstance(value, Tensor) and value._data.ndim == 0 and not value.requires_grad


def _is_float(value):  # PyTorch's double: a float or an int (bools are ints to it, and NumPy's
    return isinstance(value, (float, int, np.floating, np.integer, np.bool_)) or (  # bool too)
        _is_scalar_tensor(value))


def _is_number(value):
    return isinstance(value, (float, int, complex, np.number, np.bool_)) or _is_scalar_tensor(value)


def _is_tensor(value):
    return isinstance(value, Tensor)


def _is_int_list(value):
    """A tuple or list whose first element is an int (the others are checked when unpacked)."""
    return isinstance(value, (tuple, list)) and (not value or _is_list_int(value[0]))


def _is_list_int(value):
    """An int as the first of a list of ints, or as the first of sizes given one by one, to
    PyTorch's parser (its is_int_or_symint): what Python can use as an index (a Python or NumPy
    int, a 0-d integer array; not a bool of either kind), or a one-element integer or bool
    tensor, whatever its shape (a bool one is refused as the list is unpacked)."""
    if isinstance(value, Tensor):
        return value._data.size == 1 and value._data.dtype.kind in "iub"
    if isinstance(value, (bool, np.bool_)):
        return False
    try:
        operator.index(value)
    except Exception:  # noqa: BLE001  (PyTorch asks __index__ and clears any error it raises)
        return False
    return True


def _unpacks_as_int(value):
    """An element of a list of ints after the first, as PyTorch unpacks it: as the first
    (`_is_list_int`), or a Python bool, which it reads through __index__ (`zeros(2, True)` is
    `zeros(2, 1)`; `zeros(True, 2)` and `zeros((True, 2))` are refused). NumPy's bool is not."""
    return isinstance(value, bool) or _is_list_int(value)


def _is_one_int_tensor(value):
    """A one-element integer tensor: one int where PyTorch takes one int for a list of them
    (`t.sum(tensor([1]))`)."""
    return (isinstance(value, Tensor) and value._data.size == 1 and value._data.ndim <= 1
            and value._data.dtype.kind in "iu" and not value.requires_grad)


def _is_dtype(value):
    return isinstance(value, dtypes.dtype) or isinstance(value, type) and value in _PYTHON_DTYPES


_PYTHON_DTYPES = {float: "float64", int: "int64", bool: "bool_"}  # as PyTorch maps them


# -- the plain value of each kind, handed to the operation -------------------------------------------
def _plain_int(value):
    if isinstance(value, Tensor):
        return int(value._data.reshape(()))
    return value if type(value) is int else int(value)


def plain_number(value):
    """A number as a Python bool, int, float or complex: NumPy's scalars and 0-d tensors as the
    Python number they hold (PyTorch's Scalar keeps the value, not the tensor)."""
    if isinstance(value, np.bool_):  # not a Python bool: PyTorch's Scalar holds it as a double
        return float(value)
    if isinstance(value, np.unsignedinteger) and value > INT64[1]:  # (read as a C long long)
        raise TypeError(messages.INTEGER_REQUIRED)
    if isinstance(value, np.complexfloating) and not isinstance(value, complex):
        return float(value)  # complex64: PyTorch's Scalar reads its real part, as a Python float
    if isinstance(value, (Tensor, np.generic)):  # (NumPy warns that the rest is dropped)
        value = value._data.item() if isinstance(value, Tensor) else value.item()
    if isinstance(value, complex):  # tensorgrad has no complex dtype: refused, in PyTorch's
        if value.imag:                # words for a real result where it has an imaginary part
            raise RuntimeError(messages.COMPLEX_VALUE.format(type_name="double"))
        raise TypeError(messages.NO_COMPLEX.format(type_name="complex"))
    return value


def complex_dtype_name(tensor):
    """PyTorch's name for the complex dtype a complex number makes beside `tensor`."""
    floating = tensor._data.dtype if tensor._data.dtype.kind == "f" else \
        dtypes.get_default_dtype().numpy
    return "ComplexDouble" if floating == np.float64 else "ComplexFloat"


def refuse_complex(name, tensor, value, rounding_mode=None):
    """A complex `value` met by the operation `name` beside the real `tensor`: the refusal of
    PyTorch's kernel where it has no complex version (`x < 1j`, `i // 1j`: NotImplementedError,
    "lt_cpu" not implemented for 'ComplexFloat'), else tensorgrad's own (PyTorch would make a
    complex tensor, a dtype tensorgrad has not). Equality (`x == 1j`) is computed, a bool
    tensor, as in PyTorch: nothing to refuse. The operators and the parser both ask here."""
    if name in messages.COMPLEX_COMPARED:
        return
    kernel = messages.NO_COMPLEX_KERNEL.get((name, rounding_mode) if name == "div" else name)
    if kernel is not None and tensor is not None:
        raise NotImplementedError(messages.NOT_IMPLEMENTED_FOR.format(
            kernel=kernel, dtype=complex_dtype_name(tensor)))
    raise TypeError(messages.NO_COMPLEX.format(type_name=type(value).__name__))


def _refuse_complex_operand(name, args, kwargs):
    """The parser's part of refuse_complex: a Python complex given to an operation whose kernel
    refuses it, before the number is converted (which would refuse it in other words). True
    where the operation takes the complex number as it is (eq, ne)."""
    rounding_mode = kwargs.get("rounding_mode")
    if ((name, rounding_mode) if name == "div" else name) not in messages.NO_COMPLEX_KERNEL:
        return name in messages.COMPLEX_COMPARED  # (eq, ne: the number is handed over as it is)
    values = [*args, *kwargs.values()]
    number = next((v for v in values if isinstance(v, complex)), None)
    if number is not None:
        tensor = next((v for v in values if isinstance(v, Tensor)), None)
        refuse_complex(name, tensor, number, rounding_mode)
    return False


def _keeping_complex(plain):
    """`plain`, but a complex number (and NumPy's complex128, a Python complex) reaches the
    operation as the Python complex it is, where PyTorch's parser hands it over and the
    operation refuses it in words that depend on the inputs: add's and sub's `alpha`
    (`check_bool_alpha` in ops/elementwise.py), an in-place method's number (the cast of a
    complex result into the tensor: `_into` in tensor_methods.py)."""
    return lambda value: complex(value) if isinstance(value, complex) else plain(value)


def _plain_numpy_number(value):
    """A tensor parameter that takes numbers too (`t.mul(2)`): a NumPy scalar as the Python
    number PyTorch's Scalar makes of it (`t.mul(np.uint64(2 ** 64 - 1))` refused as there)."""
    return plain_number(value) if isinstance(value, np.generic) else value


def _plain_list_int(value):
    """An element of a list of ints (checked: `_unpacks_as_int`) as the Python int it holds."""
    if isinstance(value, Tensor):
        return int(value._data.reshape(()))
    return value if type(value) is int else operator.index(value)


def _plain_int_list(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_plain_list_int(v) if _unpacks_as_int(v) else v for v in value)
    return _plain_list_int(value) if _unpacks_as_int(value) else value


_PLAIN = {
    "int": lambda value: _plain_int(value) if _is_int(value) else value,
    "float": lambda value: plain_number(value) if not isinstance(value, (int, float)) else value,
    "Number": lambda value: (plain_number(value)
                             if isinstance(value, (Tensor, np.generic, complex)) else value),
    "tuple of ints": _plain_int_list,
    "tensorgrad.dtype": lambda value: (getattr(dtypes, _PYTHON_DTYPES[value])
                                       if isinstance(value, type) else value),
}


def converted(overload, args, kwargs, complex_into=False):
    """The call's arguments as the operation takes them, after the parser accepted them: each
    value the plain Python value of its declared kind (an int for a 0-d integer tensor or a
    NumPy integer, a dtype for `float`, a Python number for a NumPy scalar), as PyTorch's parser
    hands its C++ functions an int64_t, a ScalarType or a Scalar. A plainly valid call (passed
    by a guard) never needs this. A complex number reaches add's `alpha`, and every number
    parameter of an in-place arithmetic method (`complex_into`), as it is (`_keeping_complex`)."""
    args, kwargs, params = list(args), dict(kwargs), overload.params
    if params and params[0].varargs and args and _is_list_int(args[0]) and len(args) > 1:
        return [_plain_list_int(a) for a in args], kwargs  # ones(tensor(2), True)
    for position, param in enumerate(params):
        plain = _plain_numpy_number if param.numbers_ok else _PLAIN.get(param.type)
        if (param.name == "alpha" or complex_into) and (param.type == "Number" or param.numbers_ok):
            plain = _keeping_complex(plain)
        if plain is None:
            continue
        if position < len(args) and not param.keyword_only:
            if args[position] is not None:
                args[position] = plain(args[position])
        elif kwargs.get(param.name) is not None:
            kwargs[param.name] = plain(kwargs[param.name])
    return args, kwargs


_TYPE_CHECKS = {
    "Tensor": _is_tensor,
    "int": _is_int,
    "float": _is_float,
    "bool": lambda value: isinstance(value, bool),
    "Number": _is_number,
    "str": lambda value: isinstance(value, str),
    "tuple of ints": _is_int_list,
    "tuple of Tensors": lambda value: isinstance(value, (tuple, list)),
    "tensorgrad.dtype": _is_dtype,
    "tensorgrad.device": lambda value: isinstance(value, (str, int)) and not isinstance(
        value, bool) or _is_device(value),
    "tensorgrad.layout": lambda value: False,
    "tensorgrad.memory_format": lambda value: isinstance(value, str),
    "tensorgrad.Generator": lambda value: False,
    "tensorgrad.Storage": lambda value: False,
    "object": lambda value: True,
    "a number": lambda value: isinstance(value, (int, float, np.number, np.bool_, Tensor)) or (
        isinstance(value, np.ndarray) and value.size == 1),  # bools too; a one-number array
    "tuple of names": lambda value: False,
}


def type_name(value):
    """The name PyTorch's messages give the type of `value`."""
    if isinstance(value, dtypes.dtype):
        return "tensorgrad.dtype"
    cls = type(value)
    if cls.__module__.split(".")[0] == "numpy":  # a NumPy type: PyTorch prints its C name,
        return f"{cls.__module__}.{cls.__name__}"  # numpy.ndarray, numpy.dtypes.Float64DType
    if cls.__module__ in ("tensorgrad.device", "tensorgrad.size"):  # torch.device, torch.Size
        return "tensorgrad." + cls.__name__
    return cls.__name__


# -- guards: the quick "plainly fine" test ------------------------------------------------------------
INT64 = (-2**63, 2**63 - 1)  # the ints an `int` parameter takes
SCALAR_INTS = (-2**63, 2**64 - 1)  # the ints a Scalar (Number) takes in PyTorch
ANYTHING = (object,)  # the quick types of an `object` parameter: every value passes


def _quick_types(param):
    """The exact types that make an argument plainly valid for `param` (None: let the parser
    decide every value given for it). A value of any other type goes to the parser, which
    either accepts it by PyTorch's fuller rules or raises PyTorch's message."""
    if param.numbers_ok:
        return (Tensor, float, int)
    return {"Tensor": (Tensor,), "int": (int,), "float": (float, int), "bool": (bool,),
            "Number": (float, int, bool), "tensorgrad.dtype": (dtypes.dtype,),
            "tuple of ints": (), "a number": (float, int, bool),
            "object": ANYTHING}.get(param.type)


def _make_guard(overload):
    """A function that returns True for a plainly valid call of `overload`: every argument
    given is of a type the declaration names, and every parameter without a default is given.
    It only answers yes or "ask the parser"; the parser (below) says what is wrong.

    For each parameter the guard knows: which exact types pass, whether None passes, and
    whether a list of ints passes (`tuple of ints`). That is a few `type(v) in ...` tests per
    call, which is all a correct call pays: a value of a type that passes whatever it holds (a
    Tensor, a float; not an int, whose range is checked) is let through without calling `fits`."""
    params = list(overload.params)
    sizes = bool(params) and params[0].varargs and overload.max_positional == 1  # ones(2, 3)
    if sizes:
        params = params[1:]  # the sizes are the positional arguments; the rest keyword-only
    specs = []
    for p in params:
        types = _quick_types(p)
        int_list = p.type == "tuple of ints"
        if int_list and p.single_int:
            types = (int,)
        ints = SCALAR_INTS if p.numbers_ok or p.type == "Number" else INT64  # out of range: parser
        at_once = () if types is None or types is ANYTHING else tuple(t for t in types if t is not int)
        specs.append((at_once, types, p.default_is_none, int_list, ints))
    positional = 0 if sizes else sum(not p.keyword_only for p in params)
    index_of = {p.name: i for i, p in enumerate(params) if not keyword.iskeyword(p.name)}
    required = [(i, p.name) for i, p in enumerate(params) if not p.has_default]

    def fits(value, spec):  # (spec[0], the types that pass at once: tested before the call)
        _, types, none_ok, int_list, ints = spec
        if types is None:
            return False
        if types is ANYTHING:
            return True
        if type(value) is int and int in types:
            return ints[0] <= value <= ints[1]
        return (type(value) in types or none_ok and value is None
                or int_list and _quick_int_list(value))

    def guard(*args, **kwargs):
        if sizes:
            if not _quick_sizes(args):
                return False
            given = 0
        else:
            if len(args) > positional:
                return False
            for value, spec in zip(args, specs):
                if type(value) not in spec[0] and not fits(value, spec):
                    return False
            given = len(args)
        for name, value in kwargs.items():
            index = index_of.get(name)
            if index is None or index < given or (
                    type(value) not in specs[index][0] and not fits(value, specs[index])):
                return False
        for index, name in required:
            if index >= given and name not in kwargs:
                return False
        return True

    return guard


def _quick_int_list(value):
    if type(value) not in (tuple, list):
        return False
    for v in value:  # (a loop, not all(...): no generator to make on every call)
        if type(v) is not int or not -_INT64 <= v < _INT64:
            return False
    return True


def _quick_sizes(values):
    """Sizes given one by one, `(2, 3)`, or as one tuple or list, `((2, 3),)`."""
    if len(values) == 1 and type(values[0]) in (tuple, list):
        values = values[0]
    for v in values:
        if type(v) is not int or not -_INT64 <= v < _INT64:
            return False
    return len(values) > 0


_INT64 = 2 ** 63


# -- the parser -----------------------------------------------------------------------------------

def _bind(name, overload, args, kwargs, raise_error):
    """Match a call to one overload, as PyTorch's FunctionSignature::parse: True if it fits;
    with raise_error, the TypeError that says why it does not."""
    nargs, params = len(args), overload.params
    # ones(2, 3): a first parameter `tuple of ints...` takes the ints one by one, if the first is
    # one; the others are checked as the list is unpacked, after this overload is chosen (so
    # `view(2, "a")` fails in view's size, not as "an invalid combination")
    varargs = bool(params) and params[0].varargs and nargs > 0 and _is_list_int(args[0])
    if nargs > overload.max_positional and not varargs:
        if not raise_error:
            return False
        # (PyTorch's min_args counts the required keyword-only parameters too, and its range
        # form always says "arguments" and "were": `x.round(1)` "takes from 1 to 0 positional
        # arguments but 1 were given", of round's overload with a required `decimals`)
        most = overload.max_positional
        least = sum(not p.has_default for p in params)
        raise TypeError(messages.TAKES_POSITIONAL.format(
            name=name, count=most if least == most else f"from {least} to {most}",
            s="" if most == 1 and least == most else "s", given=nargs,
            were="was" if nargs == 1 and least == most else "were"))
    used_kwargs = 0
    for position, param in enumerate(params):
        if position < nargs and not param.keyword_only:
            value, by_keyword = args[position], False
        elif param.name in kwargs:
            value, by_keyword = kwargs[param.name], True
            used_kwargs += 1
        else:
            if param.has_default:
                continue
            if not raise_error:
                return False
            missing = [p.name for p in params[position:] if not p.has_default
                       and p.name not in kwargs]
            raise TypeError(messages.MISSING_ARGUMENTS.format(
                name=name, count=len(missing), s="s" if len(missing) == 1 else "",
                names=", ".join(f'"{n}"' for n in missing)))
        if by_keyword and param.varargs and (_is_int(value) or _is_one_int_tensor(value)):
            pass  # ones(size=2): one by one only by position
        elif param.accepts(value) or varargs and position == 0 and not by_keyword:
            continue
        if not raise_error:
            return False
        raise TypeError(_type_error(name, param, value, None if by_keyword else position + 1))
    if used_kwargs < len(kwargs):
        if not raise_error:
            return False
        names = [p.name for p in params]
        for key in kwargs:
            if key not in names:
                raise TypeError(messages.UNEXPECTED_KEYWORD.format(name=name, keyword=key))
            if names.index(key) < nargs and not params[names.index(key)].keyword_only:
                raise TypeError(messages.MULTIPLE_VALUES.format(name=name, keyword=key))
    return True


def _type_error(name, param, value, position):
    where = f" (position {position})" if position is not None else ""
    if param.type == "tuple of ints" and isinstance(value, (tuple, list)) and where:
        return messages.INT_LIST_ELEMENT.format(
            name=name, argument=param.name, where=where, element=type_name(value[0]))
    return messages.ARGUMENT_TYPE.format(name=name, argument=param.name, where=where,
                                         expected=param.type, got=type_name(value))


def _check_lists(name, overload, args, kwargs):
    """The elements of each list of ints or of Tensors, the sizes given one by one (`ones(2,
    3)`) too: PyTorch checks them when it unpacks the list, once the overload is chosen."""
    for position, param in enumerate(overload.params):
        if param.type not in ("tuple of ints", "tuple of Tensors") or param.name == "out":
            continue
        if position == 0 and param.varargs and args and _is_list_int(args[0]):
            value = args  # the sizes one by one
        elif position < len(args) and not param.keyword_only:
            value = args[position]
        else:
            value = kwargs.get(param.name)
        if not isinstance(value, (tuple, list)):
            continue
        if param.type == "tuple of ints":
            _check_elements(name, param, value, raise_error=True)
            continue
        for index, element in enumerate(value):
            if not _is_tensor(element):
                raise TypeError(messages.TENSOR_LIST_ELEMENT.format(
                    index=index, position=position, got=type_name(element)))


def _check_int_ranges(name, overload, args, kwargs):
    """An int too large for PyTorch's int64 (or, as a Scalar, for its uint64): PyTorch's error
    as it unpacks the argument."""
    for position, param in enumerate(overload.params):
        if position < len(args) and not param.keyword_only:
            value = args[position]
        elif param.name in kwargs:
            value = kwargs[param.name]
        else:
            continue
        if param.varargs and position < len(args) and _is_list_int(value):
            value = args  # ones(2, 2 ** 70): the sizes one by one
        if param.type == "tuple of ints" and isinstance(value, (tuple, list)):
            for index, element in enumerate(value):
                if _is_int(element) and not -_INT64 <= int(element) < _INT64:
                    raise TypeError(messages.INT_LIST_OVERFLOW.format(
                        name=name, argument=param.name, pos=index + 1))
        elif type(value) is not int:
            continue
        elif param.type in ("int", "tuple of ints") and not -_INT64 <= value < _INT64:
            raise ValueError(messages.INT_OVERFLOW)
        elif param.type == "Number" or param.numbers_ok and param.type == "Tensor":
            check_scalar_range(value)


def scalar(name, argument, value):
    """`value` as PyTorch's parser takes it for the Scalar argument `argument` of `name`, for
    library code that hands a value to an operation without the public check (an optimizer's
    step: `param.add_(grad, alpha=-lr)`): a number, a NumPy scalar or a 0-d tensor that does not
    require grad, as the Python number it holds; anything else refused in PyTorch's words (a
    one-element 1-d tensor too: "add(): argument 'alpha' must be Number, not Tensor")."""
    if not _is_number(value):
        raise TypeError(messages.ARGUMENT_TYPE.format(name=name, argument=argument, where="",
                                                      expected="Number", got=type_name(value)))
    if type(value) is int:
        check_scalar_range(value)
    return _SCALAR(value)  # (alpha's own check refuses a complex)


_SCALAR = _keeping_complex(_PLAIN["Number"])  # (made once: an optimizer's step calls scalar per parameter)


def python_float(value):
    """`float(value)`, as PyTorch's Python code converts a setting it declares loosely
    (clip_grad_norm_'s `max_norm` and `norm_type`: `float(norm_type)`): a string, a 0-d tensor or
    a NumPy scalar as the float it holds, anything else refused in Python's own words, which are
    PyTorch's there ("could not convert string to float: 'a'", "int too large to convert to
    float", a tensor's "only one element tensors can be converted to Python scalars")."""
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise type(error)(str(error)) from None


def check_scalar_range(value):
    """An int as PyTorch's Scalar takes it (int64 or, positive, uint64), else its OverflowError:
    every numeric slot, the operators' (`t - 2 ** 70`) too."""
    if value < -_INT64:
        raise OverflowError(messages.NEGATIVE_TO_UNSIGNED)
    if value >= 2 * _INT64:
        raise OverflowError(messages.INT_TOO_BIG)


def _check_elements(name, param, values, raise_error):
    """Each element of a list of ints as PyTorch unpacks it (`_unpacks_as_int`): a bool tensor
    passes the test but not the unpacking, which reads an int out of it."""
    for index, value in enumerate(values):
        if not _unpacks_as_int(value):
            if not raise_error:
                return False
            raise TypeError(messages.INT_LIST_UNPACK.format(
                name=name, argument=param.name, pos=index + 1, got=type_name(value)))
        if isinstance(value, Tensor) and value._data.dtype.kind == "b":
            raise RuntimeError(messages.SCALAR_NOT_INTEGRAL)
    return True


def invalid_combination(name, overloads, args, kwargs):
    """PyTorch's text when a call fits none of several overloads: every overload, and for those
    with as many parameters as the call has arguments, why it did not fit."""
    if len(overloads) == 1:  # (an operation with hidden overloads: the one shown, no reasons)
        return messages.INVALID_COMBINATION_ONE.format(
            name=name, got=_given(args, kwargs), expected=overloads[0].display)
    lines = [messages.INVALID_COMBINATION.format(name=name, got=_given(args, kwargs))]
    for overload in overloads:
        lines.append(f" * {overload.display}")
        # PyTorch reparses the printed overload, taking each parameter's last word as its name
        # (`keepdim` in `bool keepdim`, but `False` in `bool keepdim = False`), and counts `*`
        # as one more parameter. Its explanations follow from that; so do these.
        parts = list(overload.parts) or [""]
        if len(parts) != len(args) + len(kwargs):
            continue
        names = [part.rsplit(" ", 1)[-1] for part in parts]
        start = max(0, len(parts) - len(kwargs))
        unmatched = [key for key in _hash_order(kwargs) if key not in names[start:]]
        if kwargs and unmatched:
            lines.append("      didn't match because some of the keywords were incorrect: "
                         + ", ".join(unmatched))
        else:
            lines.append("      didn't match because some of the arguments have invalid types: "
                         + _marked(parts, names, args, kwargs))
    return "\n".join(lines) + "\n"


def _given(args, kwargs):
    text = "(" + "".join(f"{type_name(a)}, " for a in args)
    text += "".join(f"{key}={type_name(kwargs[key])}, " for key in _hash_order(kwargs))
    if args:
        text = text[:-2]
    return text + ")"


def _marked(parts, names, args, kwargs):
    text = "("
    for index in range(len(args) + len(kwargs)):
        if index < len(args):
            value = args[index]
            label = _described(value)
        else:
            value = kwargs.get(names[index], list(kwargs.values())[index - len(args)])
            label = f"{names[index]}={_described(value)}"
        declared = parts[index].rpartition(" ")[0]
        text += (label if _matches_printed_type(declared, value) else f"!{label}!") + ", "
    if args:
        text = text[:-2]
    return text + ")"


def _hash_order(kwargs):
    """The keywords in the order PyTorch lists them: it keeps them in a C++ hash map, whose
    order for a few keys is the reverse of the order they were given in."""
    return list(reversed(list(kwargs)))


def _described(value):
    """A value's type as PyTorch describes it when saying why an overload did not fit:
    `float`, `list of [int, int]`, `tuple of (float,)`."""
    if isinstance(value, list):
        return "list of [" + ", ".join(type_name(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(type_name(v) for v in value)
        return f"tuple of ({inner}{',' if len(value) == 1 else ''})"
    return type_name(value)


def _matches_printed_type(declared, value):
    """PyTorch's own test here compares type names: `Tensor` matches a Tensor, `float` a float
    or an int, `int` an int; any other declared type (`Number`, `tuple of ints`, or
    `bool keepdim =` when the parameter has a default) matches nothing."""
    name = type_name(value)
    if declared == "float":
        return name in ("float", "int")
    return name == declared
