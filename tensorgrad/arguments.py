"""Argument checking: one declared signature per operation, and one parser that checks a call
against it before any NumPy code runs.

PyTorch declares every operation once (`native_functions.yaml`) and checks each Python call
against those declarations in one place (its "python arg parser"), so that `torch.ones(2.5)`,
`t.sum(dim="a")` or `torch.relu([1])` all fail the same way, with a TypeError that names the
argument and what was expected. tensorgrad does the same:

    SIGNATURES, METHOD_SIGNATURES   every public operation's overloads, as PyTorch prints them
    checked(name)                   wraps a function or Tensor method so that each call is
                                    checked first; check_functions and check_methods apply it
                                    to the tensorgrad namespace and to Tensor
    check(name, args, kwargs)       the same check, by hand (nn.functional, nn.Linear, ...)
    Signatures.parse                the parser: binds a call to an overload, or raises
                                    PyTorch's error (its texts are in autograd/messages.py)
    require_tensors, require_numbers   for what PyTorch writes in Python and lets fail with an
                                    internal error (F.mse_loss([1.], t), SGD(lr="a"))

Checking costs time on every call, so a call first meets a *guard*: a small function made from
each overload that answers "is this call plainly fine?" with a few `type(...) is` tests. Only
when no guard says yes does the full parser run, to find the error and word it as PyTorch
does. The operators (`t + 1`) are not wrapped at all: they test their operand's type inline.
Value checks that need the data (a dim out of range, a negative size) stay with the operation,
at the top of its forward function; their texts live in `autograd/messages.py` too.
"""

import functools
import keyword

import numpy as np

from . import dtypes
from .autograd import messages
from .device import check_device, device
from .tensor import Tensor

# -- the declarations ----------------------------------------------------------------------------
# Each entry lists an operation's overloads as PyTorch's error messages print them, with
# `tensorgrad.` for `torch.`. Two markers are not printed: `tuple of ints[1]` also accepts a
# single int (a `dim`), `tuple of ints...` also accepts the ints one by one (`ones(2, 3)`), and
# a `?` after a type also accepts None (`bool? requires_grad = False` takes None too).
# Methods use the same entries without their first `Tensor` parameter and without `out`.
_FACTORY = ("tensorgrad.dtype dtype = None, tensorgrad.layout layout = None, "
            "tensorgrad.device device = None, bool? pin_memory = False, "
            "bool? requires_grad = False")
_LIKE = ("tensorgrad.dtype dtype = None, tensorgrad.layout layout = None, "
         "tensorgrad.device device = None, bool? pin_memory = False, "
         "bool? requires_grad = False, tensorgrad.memory_format memory_format = None")
_RANDOM_LIKE = ("tensorgrad.memory_format memory_format = None, tensorgrad.dtype dtype = None, "
                "tensorgrad.layout layout = None, tensorgrad.device device = None, "
                "bool? pin_memory = False, bool? requires_grad = False")
_UNARY = "(Tensor input, *, Tensor out = None)"
_BINARY = "(Tensor input, Tensor other, *, Tensor out = None)"

SIGNATURES = {
    # creation
    "ones": [f"(tuple of ints... size, *, Tensor out = None, {_FACTORY})"],
    "zeros": [f"(tuple of ints... size, *, Tensor out = None, {_FACTORY})"],
    "empty": [f"(tuple of ints... size, *, tensorgrad.memory_format memory_format = None, "
              f"Tensor out = None, {_FACTORY})"],
    "rand": [f"(tuple of ints... size, *, tensorgrad.Generator generator, Tensor out = None, "
             f"{_FACTORY})", f"(tuple of ints... size, *, Tensor out = None, {_FACTORY})"],
    "randn": [f"(tuple of ints... size, *, tensorgrad.Generator generator, Tensor out = None, "
              f"{_FACTORY})", f"(tuple of ints... size, *, Tensor out = None, {_FACTORY})"],
    "full": [f"(tuple of ints size, Number fill_value, *, Tensor out = None, {_FACTORY})"],
    "ones_like": [f"(Tensor input, *, {_LIKE})"],
    "zeros_like": [f"(Tensor input, *, {_LIKE})"],
    "empty_like": [f"(Tensor input, *, {_LIKE})"],
    "rand_like": [f"(Tensor input, *, tensorgrad.Generator generator, {_RANDOM_LIKE})",
                  f"(Tensor input, *, {_RANDOM_LIKE})"],
    "randn_like": [f"(Tensor input, *, tensorgrad.Generator generator, {_RANDOM_LIKE})",
                   f"(Tensor input, *, {_RANDOM_LIKE})"],
    "full_like": [f"(Tensor input, Number fill_value, *, {_LIKE})"],
    "eye": [f"(int n, *, Tensor out = None, {_FACTORY})",
            f"(int n, int m, *, Tensor out = None, {_FACTORY})"],
    "randperm": [f"(int n, *, tensorgrad.Generator generator, Tensor out = None, {_FACTORY})",
                 f"(int n, *, Tensor out = None, {_FACTORY})"],
    "arange": [f"(Number end, *, Tensor out = None, {_FACTORY})",
               f"(Number start, Number end, *, {_FACTORY})",
               f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_FACTORY})"],
    "tensor": ["(object data, *, tensorgrad.dtype dtype = None, tensorgrad.device device = None, "
               "bool pin_memory = False, bool requires_grad = False, "
               "tuple of names names = None)"],
    "as_tensor": ["(object data, *, tensorgrad.dtype dtype = None, "
                  "tensorgrad.device device = None)"],
    "linspace": [f"({a} start, {b} end, int steps, *, Tensor out = None, {_FACTORY})"
                 for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                              ("Number", "Number"))],
    "randint": [f"(int high, tuple of ints size, *, tensorgrad.Generator generator, "
                f"Tensor out = None, {_FACTORY})",
                f"(int high, tuple of ints size, *, Tensor out = None, {_FACTORY})",
                f"(int low, int high, tuple of ints size, *, tensorgrad.Generator generator, "
                f"Tensor out = None, {_FACTORY})",
                f"(int low, int high, tuple of ints size, *, Tensor out = None, {_FACTORY})"],
    "where": ["(Tensor condition)",
              "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
              "(Tensor condition, Number self, Tensor other)",
              "(Tensor condition, Tensor input, Number other)",
              "(Tensor condition, Number self, Number other)"],
    "remainder": ["(Tensor input, Tensor other, *, Tensor out = None)",
                  "(Number self, Tensor other)",
                  "(Tensor input, Number other, *, Tensor out = None)"],
    "floor_divide": ["(Tensor input, Tensor other, *, Tensor out = None)",
                     "(Tensor input, Number other)"],
    # elementwise
    "exp": [_UNARY], "log": [_UNARY], "sqrt": [_UNARY], "sin": [_UNARY], "cos": [_UNARY],
    "tanh": [_UNARY], "sigmoid": [_UNARY], "abs": [_UNARY], "sign": [_UNARY],
    "neg": [_UNARY], "reciprocal": [_UNARY], "log1p": [_UNARY], "expm1": [_UNARY],
    "square": [_UNARY], "logical_not": [_UNARY],
    "relu": ["(Tensor input)"],
    "clone": ["(Tensor input, *, tensorgrad.memory_format memory_format = None)"],
    "add": ["(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"],
    "sub": ["(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"],
    "mul": [_BINARY],
    "div": [_BINARY, "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
            "(Tensor input, Number other, *, str? rounding_mode)"], "maximum": [_BINARY], "minimum": [_BINARY],
    "eq": ["(Tensor input, Tensor other, *, Tensor out = None)",
           "(Tensor input, Number other, *, Tensor out = None)"],
    "logical_and": [_BINARY], "logical_or": [_BINARY],
    "pow": ["(Tensor input, Tensor exponent, *, Tensor out = None)",
            "(Number self, Tensor exponent, *, Tensor out = None)",
            "(Tensor input, Number exponent, *, Tensor out = None)"],
    "clamp": ["(Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)",
              "(Tensor input, Number min = None, Number max = None, *, Tensor out = None)"],
    "isclose": ["(Tensor input, Tensor other, float rtol = 1e-05, float atol = 1e-08, "
                "bool equal_nan = False)"],
    "allclose": ["(Tensor input, Tensor other, float rtol = 1e-05, float atol = 1e-08, "
                 "bool equal_nan = False)"],
    "equal": ["(Tensor input, Tensor other)"],
    # reductions
    "all": ["(Tensor input, *, Tensor out = None)",
            "(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
            "Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"],
    "any": ["(Tensor input, *, Tensor out = None)",
            "(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
            "Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"],
    "sum": ["(Tensor input, *, tensorgrad.dtype dtype = None)",
            "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
            "tensorgrad.dtype dtype = None, Tensor out = None)"],
    "mean": ["(Tensor input, *, tensorgrad.dtype dtype = None, Tensor out = None)",
             "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
             "tensorgrad.dtype dtype = None, Tensor out = None)"],
    "prod": ["(Tensor input, *, tensorgrad.dtype dtype = None)",
             "(Tensor input, int dim, bool keepdim = False, *, tensorgrad.dtype dtype = None, "
             "Tensor out = None)"],
    "max": ["(Tensor input, *, Tensor out = None)",
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"],
    "min": ["(Tensor input, *, Tensor out = None)",
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"],
    "amax": ["(Tensor input, tuple of ints[1]? dim = (), bool keepdim = False, *, "
             "Tensor out = None)"],
    "amin": ["(Tensor input, tuple of ints[1]? dim = (), bool keepdim = False, *, "
             "Tensor out = None)"],
    "argmax": ["(Tensor input, int dim = None, bool keepdim = False, *, Tensor out = None)"],
    "argmin": ["(Tensor input, int dim = None, bool keepdim = False, *, Tensor out = None)"],
    "std": ["(Tensor input, tuple of ints[1] dim, bool unbiased = True, bool keepdim = False, *, "
            "Tensor out = None)",
            "(Tensor input, tuple of ints[1] dim = None, *, Number correction = None, "
            "bool keepdim = False, Tensor out = None)",
            "(Tensor input, bool unbiased = True)"],
    "var": ["(Tensor input, tuple of ints[1] dim, bool unbiased = True, bool keepdim = False, *, "
            "Tensor out = None)",
            "(Tensor input, tuple of ints[1] dim = None, *, Number correction = None, "
            "bool keepdim = False, Tensor out = None)",
            "(Tensor input, bool unbiased = True)"],
    "linalg_vector_norm": ["(Tensor input, Number ord = 2, tuple of ints[1]? dim = None, "
                           "bool keepdim = False, *, tensorgrad.dtype dtype = None, "
                           "Tensor out = None)"],
    "logsumexp": ["(Tensor input, tuple of ints[1] dim, bool keepdim = False, *, "
                  "Tensor out = None)"],
    "softmax": ["(Tensor input, int dim, tensorgrad.dtype dtype = None, *, Tensor out = None)"],
    "log_softmax": ["(Tensor input, int dim, tensorgrad.dtype dtype = None, *, "
                    "Tensor out = None)"],
    "cumsum": ["(Tensor input, int dim, *, tensorgrad.dtype dtype = None, Tensor out = None)"],
    "gather": ["(Tensor input, int dim, Tensor index, *, bool sparse_grad = False, "
               "Tensor out = None)"],
    # shape
    "reshape": ["(Tensor input, tuple of ints... shape)"],
    "view": ["(Tensor input, tensorgrad.dtype dtype)", "(Tensor input, tuple of ints... size)"],
    "flatten": ["(Tensor input, int start_dim = 0, int end_dim = -1)"],
    "transpose": ["(Tensor input, int dim0, int dim1)"],
    "t": ["(Tensor input)"],
    "permute": ["(Tensor input, tuple of ints... dims)"],
    "unsqueeze": ["(Tensor input, int dim)"],
    "squeeze": ["(Tensor input)", "(Tensor input, int dim)",
                "(Tensor input, tuple of ints dim)"],
    "expand": ["(Tensor input, tuple of ints... size, *, bool implicit = False)"],
    "repeat": ["(Tensor input, tuple of ints... repeats)"],
    "flip": ["(Tensor input, tuple of ints... dims)"],
    "select": ["(Tensor input, int dim, int index)"],
    "unbind": ["(Tensor input, int dim = 0)"],
    "chunk": ["(Tensor input, int chunks, int dim = 0)"],
    "cat": ["(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)"],
    "concatenate": ["(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)"],
    "stack": ["(tuple of Tensors tensors, int dim = 0, *, Tensor out = None)"],
    "broadcast_to": ["(Tensor input, tuple of ints size)"],
    "split_with_sizes": ["(Tensor input, tuple of ints split_sizes, int dim = 0)"],
    "expand_copy": ["(Tensor input, tuple of ints size, *, bool implicit = False, "
                    "Tensor out = None)"],
    "expand_as": ["(Tensor input, Tensor other)"],
    "view_as": ["(Tensor input, Tensor other)"],
    "reshape_as": ["(Tensor input, Tensor other)"],
    "numel": ["(Tensor input)"],
    "detach": ["(Tensor input)"],
    # linear algebra
    "matmul": ["(Tensor input, Tensor other, *, Tensor out = None)"],
    "mm": ["(Tensor input, Tensor mat2, *, Tensor out = None)"],
    "bmm": ["(Tensor input, Tensor mat2, *, Tensor out = None)"],
    "mv": ["(Tensor input, Tensor vec, *, Tensor out = None)"],
    "dot": ["(Tensor input, Tensor tensor, *, Tensor out = None)"],
    "outer": ["(Tensor input, Tensor vec2, *, Tensor out = None)"],
    # in place
    "fill_": ["(Tensor input, Tensor value)", "(Tensor input, Number value)"],
    "copy_": ["(Tensor input, Tensor other, bool non_blocking = False)"],
    "requires_grad_": ["(Tensor input, bool requires_grad = True)"],
    "uniform_": ["(Tensor input, float from = 0, float to = 1, *, "
                 "tensorgrad.Generator generator = None)"],
    "normal_": ["(Tensor input, float mean = 0, float std = 1, *, "
                "tensorgrad.Generator generator = None)"],
    "add_": ["(Tensor input, Tensor other, *, Number alpha = 1)"],
    "sub_": ["(Tensor input, Tensor other, *, Number alpha = 1)"],
    "mul_": ["(Tensor input, Tensor other)"],
    "div_": ["(Tensor input, Tensor other)"],
    "pow_": ["(Tensor input, Tensor exponent)", "(Tensor input, Number exponent)"],
    "clamp_": ["(Tensor input, Tensor min = None, Tensor max = None)",
               "(Tensor input, Number min = None, Number max = None)"],
    # the nn functions (under the names PyTorch's messages give them)
    "linear": ["(Tensor input, Tensor weight, Tensor bias = None)"],
    "cross_entropy_loss": ["(Tensor input, Tensor target, Tensor weight = None, "
                           "int reduction = 1, int ignore_index = -100, "
                           "float label_smoothing = 0.0)"],
    "nll_loss_nd": ["(Tensor input, Tensor target, Tensor weight = None, int reduction = 1, "
                    "int ignore_index = -100)"],
}

# Methods whose overloads differ from the function's (no function of that name, or other names).
METHOD_SIGNATURES = {
    "to": ["(tensorgrad.device device = None, tensorgrad.dtype dtype = None, "
           "bool non_blocking = False, bool copy = False, *, "
           "tensorgrad.memory_format memory_format = None)",
           "(tensorgrad.dtype dtype, bool non_blocking = False, bool copy = False, *, "
           "tensorgrad.memory_format memory_format = None)",
           "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
           "tensorgrad.memory_format memory_format = None)"],
    "split": ["(int split_size, int dim = 0)", "(tuple of ints split_size, int dim = 0)"],
    "pow": ["(Tensor exponent)", "(Number exponent)"],
    "where": ["(Tensor condition, Tensor other)", "(Tensor condition, Number other)"],
    "clamp": ["(Tensor min = None, Tensor max = None)", "(Number min = None, Number max = None)"],
    "max": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "min": ["()", "(Tensor other)", "(int dim, bool keepdim = False)"],
    "eq": ["(Tensor other)", "(Number other)"],
    "size": ["(int dim = None)"],
    # (PyTorch's method takes a single int as well: it is `expand` underneath)
    "broadcast_to": ["(tuple of ints[1] size)"],
}
for _name in ("ne", "lt", "le", "gt", "ge"):
    SIGNATURES[_name] = SIGNATURES["eq"]
    METHOD_SIGNATURES[_name] = METHOD_SIGNATURES["eq"]
for _name in ("softmax", "log_softmax"):
    METHOD_SIGNATURES[_name] = ["(int dim, tensorgrad.dtype dtype = None)"]
SIGNATURES["clip"] = SIGNATURES["clamp"]
METHOD_SIGNATURES["clip"] = METHOD_SIGNATURES["clamp"]


# -- one parameter and one overload ----------------------------------------------------------------
class Parameter:
    """One declared parameter: its type, name, default, and how it may be passed."""

    __slots__ = ("type", "name", "text", "has_default", "default_is_none", "keyword_only",
                 "single_int", "varargs", "numbers_ok")

    def __init__(self, text, keyword_only):
        declared, _, default = text.partition(" = ")
        self.type, _, self.name = declared.rpartition(" ")
        optional = self.type.endswith("?")
        self.type = self.type.rstrip("?")
        self.single_int = self.type.endswith("[1]")
        self.varargs = self.type.endswith("...")
        self.type = self.type.replace("[1]", "").replace("...", "")
        self.text = f"{self.type} {self.name}" + (f" = {default}" if default else "")
        self.has_default = bool(default)
        self.default_is_none = default == "None" or optional  # None is accepted
        self.keyword_only = keyword_only
        self.numbers_ok = False  # a Python number where a Tensor is declared (t.add(2))

    def accepts(self, value):
        """PyTorch's test of one argument against its declared type."""
        if value is None and self.default_is_none:
            return True
        check = _TYPE_CHECKS[self.type]
        if self.numbers_ok and _is_number(value):
            return True
        if self.type == "tuple of ints":
            return check(value) or (self.single_int or self.varargs) and _is_int(value)
        return check(value)


class Overload:
    """One way to call an operation, such as `sum(Tensor input, tuple of ints dim, ...)`."""

    def __init__(self, text, numbers_ok=False, method=False):
        self.text = text
        self.params = []
        keyword_only = False
        for part in _split(text):
            if part == "*":
                keyword_only = True
            else:
                self.params.append(Parameter(part, keyword_only))
        for param in self.params[0 if method else 1:] if numbers_ok else ():
            if param.type == "Tensor":
                param.numbers_ok = True
        self.max_positional = sum(not p.keyword_only for p in self.params)
        self.names = {p.name for p in self.params}
        varargs = bool(self.params) and self.params[0].varargs and self.max_positional == 1
        self.most_positional = float("inf") if varargs else self.max_positional
        self.min_args = sum(not p.has_default for p in self.params)
        self.max_args = len(self.params)
        self.display = "(" + ", ".join(_displayed_parts(text)) + ")"
        self.guard = _make_guard(self)



def method_form(text):
    """An overload as a Tensor method: without the tensor itself and without `out` (None for
    overloads whose first parameter is not a tensor, such as pow(Number self, ...))."""
    parts = _split(text)
    if not parts or not parts[0].startswith("Tensor "):
        return None
    parts = [p for p in parts[1:] if not p.endswith(" out = None")]
    if parts and parts[-1] == "*":
        parts.pop()
    return "(" + ", ".join(parts) + ")"


def _split(text):
    inner = text.strip()[1:-1]
    return [part.strip() for part in inner.split(", ")] if inner else []


def _displayed_parts(text):
    return [part.replace("[1]", "").replace("...", "").replace("? ", " ") for part in _split(text)]


# -- what each declared type accepts ---------------------------------------------------------------
def _is_device(value):
    return isinstance(value, device)


def _is_int(value):
    return (type(value) is int or isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_)))


def _is_float(value):  # PyTorch's double: a float or an int (bools are ints to it)
    return isinstance(value, (float, int, np.floating, np.integer))


def _is_number(value):
    return isinstance(value, (float, int, complex, np.number, np.bool_)) or (
        _is_tensor(value) and value._data.ndim == 0)


def _is_tensor(value):
    return isinstance(value, Tensor)


def _is_int_list(value):
    """A tuple or list whose first element is an int (the others are checked when unpacked)."""
    return isinstance(value, (tuple, list)) and (not value or _is_int(value[0]))


_TYPE_CHECKS = {
    "Tensor": _is_tensor,
    "int": _is_int,
    "float": _is_float,
    "bool": lambda value: isinstance(value, (bool, np.bool_)),
    "Number": _is_number,
    "str": lambda value: isinstance(value, str),
    "tuple of ints": _is_int_list,
    "tuple of Tensors": lambda value: isinstance(value, (tuple, list)),
    "tensorgrad.dtype": lambda value: isinstance(value, dtypes.dtype) or (
        isinstance(value, type) and value in (float, int, bool)),
    "tensorgrad.device": lambda value: isinstance(value, (str, int)) and not isinstance(
        value, bool) or _is_device(value),
    "tensorgrad.layout": lambda value: False,
    "tensorgrad.memory_format": lambda value: isinstance(value, str),
    "tensorgrad.Generator": lambda value: False,
    "object": lambda value: True,
    "tuple of names": lambda value: False,
}


def type_name(value):
    """The name PyTorch's messages give the type of `value`."""
    if isinstance(value, dtypes.dtype):
        return "tensorgrad.dtype"
    cls = type(value)
    if cls.__module__ == "numpy":  # a NumPy type: PyTorch prints its C name, numpy.ndarray
        return "numpy." + cls.__name__
    if cls.__module__ in ("tensorgrad.device", "tensorgrad.size"):  # torch.device, torch.Size
        return "tensorgrad." + cls.__name__
    return cls.__name__


# -- guards: the quick "plainly fine" test ------------------------------------------------------------
INT64 = (-2**63, 2**63 - 1)  # the ints an `int` parameter takes
SCALAR_INTS = (-2**63, 2**64 - 1)  # the ints a Scalar (Number) takes in PyTorch


def _quick_types(param):
    """The exact types that make an argument plainly valid for `param` (None: let the parser
    decide every value given for it). A value of any other type goes to the parser, which
    either accepts it by PyTorch's fuller rules or raises PyTorch's message."""
    if param.numbers_ok:
        return (Tensor, float, int)
    return {"Tensor": (Tensor,), "int": (int,), "float": (float, int), "bool": (bool,),
            "Number": (float, int, bool), "tensorgrad.dtype": (dtypes.dtype,),
            "tuple of ints": ()}.get(param.type)


def _make_guard(overload):
    """A function that returns True for a plainly valid call of `overload`: every argument
    given is of a type the declaration names, and every parameter without a default is given.
    It only answers yes or "ask the parser"; the parser (below) says what is wrong.

    For each parameter the guard knows: which exact types pass, whether None passes, and
    whether a list of ints passes (`tuple of ints`). That is a few `type(v) in ...` tests per
    call, which is all a correct call pays."""
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
        specs.append((types, p.default_is_none, int_list, ints))
    positional = 0 if sizes else sum(not p.keyword_only for p in params)
    index_of = {p.name: i for i, p in enumerate(params) if not keyword.iskeyword(p.name)}
    required = [(i, p.name) for i, p in enumerate(params) if not p.has_default]

    def fits(value, spec):
        types, none_ok, int_list, ints = spec
        if types is None:
            return False
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
                if not fits(value, spec):
                    return False
            given = len(args)
        for name, value in kwargs.items():
            index = index_of.get(name)
            if index is None or index < given or not fits(value, specs[index]):
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
# Operations whose Tensor arguments may also be Python numbers (`t.add(2)`), as in PyTorch's
# should_allow_numbers_as_tensors.
NUMBERS_AS_TENSORS = {"add", "sub", "mul", "div", "add_", "sub_", "mul_", "div_", "copy_"}


class Signatures:
    """All overloads of one operation (as a function, or as a method)."""

    def __init__(self, name, texts, method=False):
        self.name = name
        self.method = method
        numbers_ok = name in NUMBERS_AS_TENSORS
        self.overloads = [Overload(text, numbers_ok, method) for text in texts]
        self.guards = tuple(o.guard for o in self.overloads)

    def match(self, args, kwargs):
        """The overload this call fits: found by the guards when the call is plainly valid,
        else by the parser, which raises PyTorch's error when none fits."""
        for overload in self.overloads:
            if len(args) > overload.most_positional or kwargs and not overload.names >= kwargs.keys():
                continue  # (a cheap test first: a guard that cannot bind raises, which is slow)
            try:
                if overload.guard(*args, **kwargs):
                    return overload
            except TypeError:
                pass
        return self.parse(args, kwargs)

    def parse(self, args, kwargs):
        """Check a call; return the overload it matches, or raise PyTorch's error."""
        for overload in self.overloads:
            if _bind(self.name, overload, args, kwargs, raise_error=False):
                _check_int_lists(self.name, overload, args, kwargs)
                _check_int_ranges(self.name, overload, args, kwargs)
                return overload
        total = len(args) + len(kwargs)
        plausible = [o for o in self.overloads if o.min_args <= total <= o.max_args]
        if len(self.overloads) == 1 or len(plausible) == 1:
            overload = self.overloads[0] if len(self.overloads) == 1 else plausible[0]
            _bind(self.name, overload, args, kwargs, raise_error=True)
            _check_int_lists(self.name, overload, args, kwargs)
            _check_int_ranges(self.name, overload, args, kwargs)
            return overload
        raise TypeError(invalid_combination(self.name, self.overloads, args, kwargs))


def _bind(name, overload, args, kwargs, raise_error):
    """Match a call to one overload, as PyTorch's FunctionSignature::parse: True if it fits;
    with raise_error, the TypeError that says why it does not."""
    nargs, params = len(args), overload.params
    # ones(2, 3): a first parameter `tuple of ints...` takes the ints one by one, if the first is
    varargs = bool(params) and params[0].varargs and nargs > 0 and _is_int(args[0])
    if nargs > overload.max_positional and not varargs:
        if not raise_error:
            return False
        most = overload.max_positional
        least = sum(not p.has_default for p in params if not p.keyword_only)
        raise TypeError(messages.TAKES_POSITIONAL.format(
            name=name, count=most if least == most else f"from {least} to {most}",
            s="" if most == 1 else "s", given=nargs, were="was" if nargs == 1 else "were"))
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
        if by_keyword and param.varargs and _is_int(value):
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
    if varargs and nargs > 1:  # ones(2, 3): every size must be an int
        return _check_elements(name, params[0], args, raise_error)
    return True


def _type_error(name, param, value, position):
    where = f" (position {position})" if position is not None else ""
    if param.type == "tuple of ints" and isinstance(value, (tuple, list)) and where:
        return messages.INT_LIST_ELEMENT.format(
            name=name, argument=param.name, where=where, element=type_name(value[0]))
    return messages.ARGUMENT_TYPE.format(name=name, argument=param.name, where=where,
                                         expected=param.type, got=type_name(value))


def _check_int_lists(name, overload, args, kwargs):
    """The elements after the first of each int list (PyTorch checks them when it unpacks)."""
    for position, param in enumerate(overload.params):
        if param.type != "tuple of ints":
            continue
        if position < len(args) and not param.keyword_only:
            value = args[position]
        else:
            value = kwargs.get(param.name)
        if isinstance(value, (tuple, list)):
            _check_elements(name, param, value, raise_error=True)


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
        if param.varargs and position < len(args) and _is_int(value):
            value = args  # ones(2, 2 ** 70): the sizes one by one
        if param.type == "tuple of ints" and isinstance(value, (tuple, list)):
            for index, element in enumerate(value):
                if _is_int(element) and not -_INT64 <= element < _INT64:
                    raise TypeError(messages.INT_LIST_OVERFLOW.format(
                        name=name, argument=param.name, pos=index + 1))
        elif type(value) is not int:
            continue
        elif param.type in ("int", "tuple of ints") and not -_INT64 <= value < _INT64:
            raise ValueError(messages.INT_OVERFLOW)
        elif param.type == "Number" or param.numbers_ok and param.type == "Tensor":
            if value < -_INT64:
                raise OverflowError(messages.NEGATIVE_TO_UNSIGNED)
            if value >= 2 * _INT64:
                raise OverflowError(messages.INT_TOO_BIG)


def _check_elements(name, param, values, raise_error):
    for index, value in enumerate(values):
        if not _is_int(value):
            if not raise_error:
                return False
            raise TypeError(messages.INT_LIST_UNPACK.format(
                name=name, argument=param.name, pos=index + 1, got=type_name(value)))
    return True


def invalid_combination(name, overloads, args, kwargs):
    """PyTorch's text when a call fits none of several overloads: every overload, and for those
    with as many parameters as the call has arguments, why it did not fit."""
    lines = [messages.INVALID_COMBINATION.format(name=name, got=_given(args, kwargs))]
    for overload in overloads:
        lines.append(f" * {overload.display}")
        # PyTorch reparses the printed overload, taking each parameter's last word as its name
        # (`keepdim` in `bool keepdim`, but `False` in `bool keepdim = False`), and counts `*`
        # as one more parameter. Its explanations follow from that; so do these.
        parts = _displayed_parts(overload.text) or [""]
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


# -- the decorator ------------------------------------------------------------------------------------
_FUNCTIONS = {}
_METHODS = {}


def signatures(name, method=False):
    """The parsed overloads of a function (or a Tensor method) named in the tables above."""
    table = _METHODS if method else _FUNCTIONS
    found = table.get(name)
    if found is None:
        found = table[name] = Signatures(name, _texts(name, method), method)
    return found


def _texts(name, method):
    if method and name in METHOD_SIGNATURES:
        return METHOD_SIGNATURES[name]
    if method:
        return [m for m in map(method_form, SIGNATURES[name]) if m]
    return SIGNATURES[name]


def checked(name, method=False):
    """Decorate a public function (or, with method=True, a Tensor method) so that every call is
    checked against its declared signature before the function runs."""
    def decorate(function):
        declared = None

        @functools.wraps(function)
        def wrapper(*args, **kwargs):  # (Signatures.match and the keyword test, spelled out:
            nonlocal declared          # every call of a public function passes here)
            if declared is None:
                declared = signatures(name, method)
            call_args = args[1:] if method else args
            for overload in declared.overloads:
                if len(call_args) > overload.most_positional or (
                        kwargs and not overload.names >= kwargs.keys()):
                    continue
                try:
                    if overload.guard(*call_args, **kwargs):
                        break
                except TypeError:
                    pass
            else:
                overload = declared.parse(call_args, kwargs)
            if kwargs and (function, overload, tuple(kwargs)) not in _PASSES_AS_IT_IS_TRUE:
                args, kwargs = _as_the_function_takes(function, overload, args, kwargs, method)
            return function(*args, **kwargs)

        wrapper.signature_name = name
        return wrapper

    return decorate


def check(name, args, kwargs=None, method=False):
    """Check one call by hand (where a decorator does not fit), as `checked` does."""
    signatures(name, method).match(args, kwargs or {})


# Keyword arguments PyTorch takes that mean nothing in tensorgrad (one device, one layout)
_IGNORED = {"pin_memory", "layout", "memory_format", "non_blocking", "names", "implicit",
            "sparse_grad"}


def _as_the_function_takes(function, overload, args, kwargs, method):
    """A call made with PyTorch's keywords (`add(t, other=2)`, `ones(size=(2,))`), rewritten
    for tensorgrad's function, whose parameters may have other names (`add(a, b)`,
    `ones(*size)`). Keywords it takes as they are pass straight through."""
    key = (function, overload, tuple(kwargs))
    passes = _PASSES_AS_IT_IS.get(key)
    if passes is None:
        passes = _PASSES_AS_IT_IS[key] = _takes_as_it_is(function, overload, kwargs, method)
        if passes:
            _PASSES_AS_IT_IS_TRUE.add(key)
    if passes:
        return args, kwargs
    parameters = _parameters(function)
    positional = [p for p in parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    declared_positional = [p for p in overload.params if not p.keyword_only]
    offset = 1 if method else 0
    args, rest = list(args), {}
    order = [p.name for p in overload.params]
    for key, value in sorted(kwargs.items(), key=lambda item: (
            order.index(item[0]) if item[0] in order else len(order))):
        declared = next((p for p in overload.params if p.name == key), None)
        if declared is not None and not declared.keyword_only:
            index = declared_positional.index(declared) + offset
            target = positional[min(index, len(positional) - 1)]
            if target.kind == target.VAR_POSITIONAL or index == len(args):
                args.append(value)
            else:
                rest[target.name] = value
        elif key in parameters:
            rest[key] = value
        elif key == "out":
            raise TypeError(messages.NO_OUT_ARGUMENT.format(name=function.__name__))
        elif key == "device":
            check_device(value)
        elif key == "pin_memory" and value:
            raise RuntimeError(messages.PIN_MEMORY)
        elif key not in _IGNORED and value is not None:
            raise NotImplementedError(messages.UNSUPPORTED_KEYWORD.format(
                name=function.__name__, keyword=key))
    return args, rest


_PASSES_AS_IT_IS = {}  # (function, overload, keywords) -> does the call need no rewriting?
_PASSES_AS_IT_IS_TRUE = set()  # the keys above whose answer is yes


def _takes_as_it_is(function, overload, keywords, method):
    """Does the function take these keywords itself, each in the declared position?"""
    parameters = _parameters(function)
    if any(p.kind == p.VAR_KEYWORD for p in parameters.values()):
        return True
    positional = [p for p in parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    names = [p.name for p in overload.params if not p.keyword_only]
    for key in keywords:
        if key not in parameters or parameters[key].kind == parameters[key].VAR_POSITIONAL:
            return False
        if key not in names:
            if parameters[key].kind != parameters[key].KEYWORD_ONLY:
                return False
            continue
        index = names.index(key) + (1 if method else 0)
        if index >= len(positional) or positional[index].name != key:
            return False
    return True


@functools.lru_cache(maxsize=None)
def _parameters(function):
    import inspect  # (only for calls made with keywords that need rewriting: not at import)

    return dict(inspect.signature(function).parameters)


def check_methods(cls):
    """Wrap every method of `cls` (the Tensor class) that has a declared signature with
    arguments, so that `t.sum(dim="a")` is refused as `torch.Tensor.sum` refuses it."""
    for name in set(SIGNATURES) | set(METHOD_SIGNATURES):
        method = cls.__dict__.get(name)
        if method is None or not callable(method):
            continue
        if all(text == "()" for text in _texts(name, method=True)):
            continue  # no arguments beyond the tensor: Python's own check suffices
        setattr(cls, name, checked(name, method=True)(method))


def check_functions(namespace):
    """Wrap every function in `namespace` (a module's globals) that has a declared signature."""
    for name, function in list(namespace.items()):
        if name in SIGNATURES and callable(function) and not hasattr(function, "signature_name"):
            namespace[name] = checked(name)(function)


def require_tensors(name, *values):
    """For functions that PyTorch writes in Python and that fail with an AttributeError of its
    own on a non-tensor (`F.mse_loss(x, [1.])`: "'list' object has no attribute 'size'"):
    tensorgrad says which argument must be a Tensor instead."""
    for position, (argument, value) in enumerate(values, start=1):
        if not isinstance(value, Tensor) and not (value is None and argument == "weight"):
            raise TypeError(messages.ARGUMENT_TYPE.format(
                name=name, argument=argument, where=f" (position {position})",
                expected="Tensor", got=type_name(value)))


def require_numbers(name, **values):
    """For settings PyTorch compares without checking their type first (`SGD(lr="a")` fails in
    torch with "'<' not supported between instances of 'str' and 'float'"): tensorgrad names
    the setting and says a number is needed."""
    for argument, value in values.items():
        if not isinstance(value, (int, float, np.number, np.bool_)):  # a bool too, as in torch
            raise TypeError(messages.NOT_A_NUMBER_ARGUMENT.format(
                name=name, argument=argument, type_name=type_name(value)))
