"""finfo and iinfo: the limits of a dtype, as `torch.finfo(torch.float32).eps` gives them.

A learner meets them in a tolerance (`x < tg.finfo(x.dtype).eps`) or a clamp that keeps a log
finite (`p.clamp(min=tg.finfo(p.dtype).tiny)`). The numbers are NumPy's (the same IEEE limits),
as Python numbers, printed as PyTorch prints them.
"""

import numpy as np

from . import dtypes
from .arguments import Dtype, declare, overload
from .autograd import messages


@overload
def _finfo(type: Dtype): ...  # noqa: A002  (PyTorch's name)
@overload
def _finfo(): ...
def _iinfo(type: Dtype): ...  # noqa: A002


_FINFO = declare(_finfo, name="finfo")
_IINFO = declare(_iinfo, name="iinfo")


class _Limits:
    """What finfo and iinfo share: equal when they describe the same dtype, not hashable (as
    PyTorch's)."""

    __hash__ = None

    def __eq__(self, other):
        return type(other) is type(self) and other.dtype == self.dtype


class finfo(_Limits):  # noqa: N801  (PyTorch's name)
    """The limits of a floating-point dtype (the default dtype if none is given): bits, eps (the
    gap from 1 to the next number), max, min, tiny (= smallest_normal, the smallest positive
    normal number) and resolution (10 to the minus the decimal digits it holds)."""

    __module__ = "tensorgrad"  # (tensorgrad.finfo, as torch.finfo)

    def __init__(self, *args, **kwargs):
        _FINFO.match(args, kwargs)
        dtype = dtypes.check_dtype(args[0] if args else kwargs.get("type", dtypes.get_default_dtype()))
        if not dtype.is_floating_point:
            raise TypeError(messages.FINFO_NOT_FLOAT)
        limits = np.finfo(dtype.numpy)
        self.bits = int(limits.bits)
        self.eps = float(limits.eps)
        self.max = float(limits.max)
        self.min = float(limits.min)
        self.tiny = self.smallest_normal = float(limits.smallest_normal)
        self.resolution = 10.0 ** -int(limits.precision)  # (1e-06, where NumPy's is float32's)
        self.dtype = dtype.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo(_Limits):  # noqa: N801  (PyTorch's name)
    """The limits of an integer dtype: bits, max and min."""

    __module__ = "tensorgrad"

    def __init__(self, *args, **kwargs):
        _IINFO.match(args, kwargs)
        dtype = dtypes.check_dtype(args[0] if args else kwargs["type"])
        if dtype is dtypes.bool_:
            raise TypeError(messages.IINFO_BOOL)
        if dtype.is_floating_point:
            raise TypeError(messages.IINFO_NOT_INTEGER)
        limits = np.iinfo(dtype.numpy)
        self.bits, self.max, self.min = int(limits.bits), int(limits.max), int(limits.min)
        self.dtype = dtype.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
