"""tensorgrad.save and tensorgrad.load: tensors (and lists, tuples, dicts of them) to a file.

    tensorgrad.save({"weight": w, "steps": [x, y]}, "checkpoint.tg")   # a path or a binary file
    state = tensorgrad.load("checkpoint.tg")

As torch.save/torch.load: the same structure comes back, each tensor with its values, dtype and
`requires_grad` (a Parameter as a Parameter), a tensor saved twice as one tensor, and tensors that
shared memory (a view and its base) sharing it again. What comes back is always a leaf: the graph
that made a tensor is not saved.

The file is a zip archive: `structure.json` describes the objects, and each block of memory is an
`.npy` file in it, written by NumPy with allow_pickle=False. No pickle anywhere, so loading a file
cannot run code (torch.load's weights_only=True, by construction). The price: only these can be
saved -- tensors, Python numbers, strings, bytes, None, dtypes, Sizes, devices, and lists, tuples,
dicts (OrderedDicts), sets of them. Anything else is refused when saving (torch pickles it, and
torch.load then refuses it by default).
"""

import base64
import collections
import io
import json
import os
import zipfile

import numpy as np

from . import dtypes
from .device import device as _device
from .nn.parameter import Parameter
from .size import Size
from .core.tensor import Tensor

_FORMAT = "tensorgrad.save 1"
_STRUCTURE = "structure.json"


# -- saving -----------------------------------------------------------------------------------
def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write `obj` to `f`: a path (str or os.PathLike) or a binary file opened for writing.

    pickle_module and pickle_protocol are accepted for torch.save's signature and unused."""
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    elif not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    writer = _Writer()
    structure = writer.encode(obj)
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_STRUCTURE, json.dumps({"format": _FORMAT, "object": structure}))
        for index, memory in enumerate(writer.memories):
            buffer = io.BytesIO()
            np.save(buffer, memory, allow_pickle=False)
            archive.writestr(f"memory/{index}.npy", buffer.getvalue())


class _Writer:
    """Turns an object into JSON-able data; collects the blocks of memory its tensors use."""

    def __init__(self):
        self.memories = []  # one flat NumPy array per block of memory
        self._memory_index = {}  # id of the array that owns a block -> its index
        self._tensor_index = {}  # id of a tensor already written -> its number
        self._keep = []  # what the ids refer to, alive until the end

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return {"int": str(obj)}
        if isinstance(obj, float):
            return {"float": repr(obj)}
        if isinstance(obj, complex):
            return {"complex": [repr(obj.real), repr(obj.imag)]}
        if isinstance(obj, bytes):
            return {"bytes": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, dtypes.dtype):
            return {"dtype": str(obj).split(".")[-1]}
        if isinstance(obj, Size):
            return {"size": [int(n) for n in obj]}
        if isinstance(obj, _device):
            return {"device": str(obj)}
        if isinstance(obj, (list, tuple, set)):
            kind = {list: "list", tuple: "tuple", set: "set"}.get(type(obj))
            if kind is not None:
                return {kind: [self.encode(item) for item in obj]}
        if type(obj) in (dict, collections.OrderedDict):
            kind = "dict" if type(obj) is dict else "ordered_dict"
            return {kind: [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
        raise TypeError(
            f"tensorgrad.save cannot save an object of type {type(obj).__name__}: only tensors, "
            "Python numbers, strings, bytes, None, dtypes, sizes, devices, and lists, tuples, "
            "dicts and sets of them (tensorgrad saves without pickle, so that loading a file "
            "cannot run code)")

    def _tensor(self, tensor):
        number = self._tensor_index.get(id(tensor))
        if number is not None:
            return {"same_tensor": number}
        self._tensor_index[id(tensor)] = number = len(self._tensor_index)
        self._keep.append(tensor)
        data = tensor._data
        memory, offset, strides = self._memory_of(data)
        entry = {"tensor": number, "memory": memory, "offset": offset, "shape": list(data.shape),
                 "strides": strides, "requires_grad": bool(tensor.requires_grad)}
        if isinstance(tensor, Parameter):
            entry["parameter"] = True
        return entry

    def _memory_of(self, data):
        """(memory index, offset, strides in elements) of the block `data` lies in."""
        owner = data
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        itemsize = data.dtype.itemsize
        shared = (owner.dtype == data.dtype and (owner.flags.c_contiguous or owner.flags.f_contiguous)
                  and all(stride % itemsize == 0 for stride in data.strides))
        if not shared:  # memory NumPy lays out otherwise: save this tensor's values on their own
            owner = np.ascontiguousarray(data)
            data = owner
        index = self._memory_index.get(id(owner))
        if index is None:
            index = self._memory_index[id(owner)] = len(self.memories)
            self.memories.append(owner.reshape(-1, order="A"))  # memory order, no copy
            self._keep.append(owner)
        start = owner.__array_interface__["data"][0]
        offset = (data.__array_interface__["data"][0] - start) // itemsize
        return index, offset, [stride // itemsize for stride in data.strides]


# -- loading ----------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read back what `save` wrote to `f` (a path or a binary file opened for reading).

    map_location may name the CPU (tensorgrad has no other device); weights_only is accepted
    for torch.load's signature: tensorgrad's files hold no code either way."""
    if map_location is not None and not _is_cpu(map_location):
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
            "False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "seek"):
        raise AttributeError(
            f"'{type(f).__name__}' object has no attribute 'seek'. You can only torch.load from a "
            "file that is seekable. Please pre-load the data into a buffer like io.BytesIO and "
            "try to load from it instead.")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as opened:
            return _load(opened, os.fspath(f))
    return _load(f, "the file")


def _is_cpu(location):
    if isinstance(location, dict):
        return all(_is_cpu(value) for value in location.values())
    return str(location).split(":")[0] == "cpu"


def _load(file, name):
    start = file.tell()
    if not file.read(1):
        raise EOFError  # as torch.load of an empty file, without a message
    file.seek(start)
    try:
        archive = zipfile.ZipFile(file)
        names = set(archive.namelist())
    except zipfile.BadZipFile:
        raise RuntimeError(f"{name} is not a file saved by tensorgrad.save (not a zip archive)")\
            from None
    if _STRUCTURE not in names:
        what = "a file saved by torch.save" if any(n.endswith("data.pkl") for n in names) \
            else "not a file saved by tensorgrad.save"
        raise RuntimeError(f"{name} is {what}: tensorgrad.load reads what tensorgrad.save wrote")
    with archive:
        header = json.loads(archive.read(_STRUCTURE))
        if header.get("format") != _FORMAT:
            raise RuntimeError(f"{name} was saved in an unknown format: {header.get('format')!r}")

        def memory(index):
            with archive.open(f"memory/{index}.npy") as stream:
                return np.load(io.BytesIO(stream.read()), allow_pickle=False)

        return _Reader(memory).decode(header["object"])


class _Reader:
    def __init__(self, memory):
        self._read_memory = memory
        self._memories = {}
        self._tensors = {}

    def decode(self, data):
        if data is None or isinstance(data, (bool, str)):
            return data
        if isinstance(data, dict):
            ((kind, value),) = [(k, v) for k, v in data.items() if k in _KINDS]
            return getattr(self, "_" + kind)(value, data)
        raise RuntimeError(f"an entry tensorgrad.load cannot read: {data!r}")

    def _int(self, value, _):
        return int(value)

    def _float(self, value, _):
        return float(value)

    def _complex(self, value, _):
        return complex(float(value[0]), float(value[1]))

    def _bytes(self, value, _):
        return base64.b64decode(value)

    def _dtype(self, value, _):
        return getattr(dtypes, value if value != "bool" else "bool_")

    def _size(self, value, _):
        return Size(value)

    def _device(self, value, _):
        return _device(value)

    def _list(self, value, _):
        return [self.decode(item) for item in value]

    def _tuple(self, value, _):
        return tuple(self.decode(item) for item in value)

    def _set(self, value, _):
        return {self.decode(item) for item in value}

    def _dict(self, value, _):
        return {self.decode(k): self.decode(v) for k, v in value}

    def _ordered_dict(self, value, _):
        return collections.OrderedDict((self.decode(k), self.decode(v)) for k, v in value)

    def _same_tensor(self, value, _):
        return self._tensors[value]

    def _tensor(self, number, entry):
        index = entry["memory"]
        if index not in self._memories:
            self._memories[index] = self._read_memory(index)
        flat = self._memories[index]
        itemsize = flat.dtype.itemsize
        data = np.lib.stride_tricks.as_strided(
            flat[entry["offset"]:], shape=tuple(entry["shape"]),
            strides=tuple(stride * itemsize for stride in entry["strides"]))
        tensor = Tensor._make(data)
        if entry.get("parameter"):
            tensor = Parameter(tensor, requires_grad=entry["requires_grad"])
        elif entry["requires_grad"]:
            tensor._requires_grad_(True)  # (the plain method: a fresh float leaf, nothing to check)
        self._tensors[number] = tensor
        return tensor


_KINDS = ("int", "float", "complex", "bytes", "dtype", "size", "device", "list", "tuple", "set",
          "dict", "ordered_dict", "same_tensor", "tensor")

__all__ = ["save", "load"]
