"""`Size`, the type of `tensor.shape`: a tuple that prints like `torch.Size([2, 3])`."""


class Size(tuple):
    """A tuple of dimension lengths. `tensorgrad.Size([2, 3]) == (2, 3)` is True."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        return super().__new__(cls, (int(s) for s in sizes))

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
