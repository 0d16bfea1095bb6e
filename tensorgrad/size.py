"""`Size`, the type of `tensor.shape`: a tuple that prints like `torch.Size([2, 3])`."""

import operator


class Size(tuple):
    """A tuple of dimension lengths. `tensorgrad.Size([2, 3]) == (2, 3)` is True."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        return super().__new__(cls, (_size_item(i, s) for i, s in enumerate(sizes)))

    def __repr__(self):
        return f"tensorgrad.Size({list(self)})"

    def numel(self):
        count = 1
        for s in self:
            count *= s
        return count

    def __getitem__(self, index):
        result = super().__getitem__(index)
        return Size(result) if isinstance(index, slice) else result


def _size_item(position, value):
    """One length: whatever Python reads as an int (a NumPy or an integer tensor's int too), and
    PyTorch's TypeError for anything else (`Size([2.0])`, where int() would drop the fraction)."""
    if type(value) is int:
        return value
    try:
        return operator.index(value)
    except TypeError:
        cls = type(value)
        name = f"numpy.{cls.__name__}" if cls.__module__.startswith("numpy") else cls.__name__
        raise TypeError(f"tensorgrad.Size() takes an iterable of 'int' (item {position} is "
                        f"'{name}')") from None
