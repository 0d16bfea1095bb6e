"""Devices: tensorgrad computes on the CPU only, and says so in PyTorch's words.

Tutorials are written for machines with a GPU (`device = "cuda" if torch.cuda.is_available()
else "cpu"`, `x.to(device)`), so the names exist: `tensorgrad.device`, `tensor.device`,
`tensor.cpu()`, `tensorgrad.cuda.is_available()` (False). Asking for a CUDA device fails as
PyTorch does on a machine without one.
"""

from .autograd import messages

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")


class device:  # noqa: N801  (PyTorch's name)
    """`device("cpu")`, `device("cuda", 0)` or `device("cuda:0")`: where a tensor lives."""

    def __init__(self, type, index=None):  # noqa: A002  (PyTorch's argument name)
        if isinstance(type, device):
            type, index = type.type, type.index  # noqa: A001  (PyTorch's parameter name)
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' (position 1) must be str, not "
                            f"{_type_name(type)}")
        name, _, number = type.partition(":")
        if name not in DEVICE_TYPES:
            raise RuntimeError(messages.UNKNOWN_DEVICE.format(device=type))
        if number:
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type = name
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


def _type_name(value):
    return value.__class__.__name__


CPU = device("cpu")


def check_device(where):
    """tensorgrad has one device, the CPU: "cpu", device("cpu") or None is fine; anything else
    is refused with PyTorch's words on a machine without that device."""
    if where is None or str(where) in ("cpu", "cpu:0"):
        return
    if str(where).startswith("cuda"):
        raise AssertionError(messages.NO_CUDA)
    if isinstance(where, int):
        if not -2 ** 63 <= where < 2 ** 63:
            raise ValueError(messages.INT_OVERFLOW)
        raise RuntimeError(messages.NEGATIVE_DEVICE_INDEX if where < 0 else messages.NO_ACCELERATOR)
    if isinstance(where, str):
        device(where)  # an unknown type: PyTorch's list of the types there are
    raise RuntimeError(messages.NO_SUCH_DEVICE.format(device=where))


class _Cuda:
    """`tensorgrad.cuda`: there is no GPU, so it is never available."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    @staticmethod
    def manual_seed(seed):
        return None  # nothing to seed (as torch.cuda.manual_seed without a GPU)

    manual_seed_all = manual_seed

    def __repr__(self):
        return "<module 'tensorgrad.cuda'>"


cuda = _Cuda()
