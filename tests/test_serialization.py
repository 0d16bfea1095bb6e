"""tensorgrad.save / tensorgrad.load, as torch.save / torch.load: each row runs on tensorgrad and,
when it is installed, on torch (the `lib` fixture)."""

import collections
import io
import zipfile

import pytest

import tensorgrad as tg
from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def round_trip(lib, obj):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer)


def test_structures_come_back_with_values_dtypes_and_flags(lib):
    w = lib.tensor([1., 2.], requires_grad=True)
    y = w * 2  # not a leaf: comes back as a leaf that requires grad
    obj = {"a": w, "b": [y, (lib.tensor(3), 1.5, "s", None, True, 2 ** 70)],
           3: lib.zeros(2, dtype=lib.int64), "mask": lib.tensor([True, False]),
           "d": lib.tensor([0.5], dtype=lib.float64), "meta": (lib.float64, lib.Size([2, 3]))}
    back = round_trip(lib, obj)
    assert show(back) == show(obj).replace(", grad_fn=<MulBackward0>", ", requires_grad=True")
    assert back["a"].requires_grad and back["a"].is_leaf
    assert back["b"][0].requires_grad and back["b"][0].is_leaf and back["b"][0].grad_fn is None
    assert [back[3].dtype, back["mask"].dtype, back["d"].dtype] == [lib.int64, lib.bool,
                                                                     lib.float64]
    assert type(back["b"][1]) is tuple and back["meta"] == (lib.float64, lib.Size([2, 3]))


def test_a_path_and_a_state_dict(lib, tmp_path):
    model = lib.nn.Linear(3, 2)
    path = tmp_path / "model.pt"
    lib.save(model.state_dict(), path)
    state = lib.load(str(path), weights_only=True)
    assert type(state) is collections.OrderedDict and list(state) == ["weight", "bias"]
    assert state["weight"].tolist() == model.weight.tolist()
    fresh = lib.nn.Linear(3, 2)
    fresh.load_state_dict(state)
    assert fresh.bias.tolist() == model.bias.tolist()


def test_a_parameter_comes_back_as_a_parameter(lib):
    param = lib.nn.Parameter(lib.ones(2))
    back = round_trip(lib, [param, lib.nn.Parameter(lib.ones(1), requires_grad=False)])
    assert type(back[0]) is lib.nn.Parameter and show(repr(back[0])) == show(repr(param))
    assert back[1].requires_grad is False


def test_identity_and_shared_memory_are_kept(lib):
    base = lib.arange(4.)
    view = base[1:3]
    column = lib.tensor([[1., 2.], [3., 4.]]).t()[0]
    a, b, c, d = round_trip(lib, [base, view, base, column])
    assert a is c
    a[1] = 9.  # the view shares the loaded base's memory
    assert b.tolist() == [9., 2.] and d.tolist() == [1., 3.]


def test_the_saved_tensors_hooks_tutorial_keeps_saved_tensors_on_disk(lib, tmp_path):
    names = []

    def pack_hook(tensor):
        name = str(tmp_path / f"saved{len(names)}")
        names.append(name)
        lib.save(tensor, name)
        return name

    def unpack_hook(name):
        return lib.load(name, weights_only=True)

    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x.pow(2).sin()
    y.sum().backward()
    assert len(names) == 2
    assert lib.allclose(x.grad, 2 * x.detach() * x.detach().pow(2).cos())


def test_errors_for_files_as_torch(lib, tmp_path):
    t = lib.ones(2)
    missing = tmp_path / "no" / "file"
    raises(RuntimeError, f"Parent directory {tmp_path / 'no'} does not exist.",
           lambda: lib.save(t, str(missing)))
    raises(AttributeError,
           "expected 'f' to be string, path, or a file-like object with a 'write' attribute",
           lambda: lib.save(t, 3))
    raises(AttributeError, "'NoneType' object has no attribute 'seek'. You can only "
           "tensorgrad.load from a file that is seekable. Please pre-load the data into a buffer "
           "like io.BytesIO and try to load from it instead.", lambda: lib.load(None))
    with pytest.raises(FileNotFoundError):
        lib.load(str(tmp_path / "nothing"))
    raises(EOFError, "", lambda: lib.load(io.BytesIO(b"")))
    raises(RuntimeError, "Attempting to deserialize object on a CUDA device but "
           "tensorgrad.cuda.is_available() is False. If you are running on a CPU-only machine, "
           "please use tensorgrad.load with map_location=tensorgrad.device('cpu') to map your "
           "storages to the CPU.", lambda: lib.load(_saved(lib, t), map_location="cuda"))
    assert lib.load(_saved(lib, t), map_location="cpu").tolist() == [1., 1.]


def _saved(lib, obj):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return buffer


# -- tensorgrad's own: no pickle, so what cannot be saved without it is refused -----------------
def test_the_file_holds_no_pickle():
    names = zipfile.ZipFile(_saved(tg, {"w": tg.ones(2)})).namelist()
    assert names == ["structure.json", "memory/0.npy"]


@pytest.mark.parametrize("obj", [object(), lambda: 1, [tg.ones(1), object()], {"f": print},
                                 frozenset(), range(3)])
def test_objects_other_than_tensors_and_plain_data_are_refused_when_saving(obj, tmp_path):
    with pytest.raises(TypeError, match="^tensorgrad.save cannot save an object of type "):
        tg.save(obj, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_files_not_saved_by_tensorgrad_are_refused():
    with pytest.raises(RuntimeError, match="is not a file saved by tensorgrad.save"):
        tg.load(io.BytesIO(b"garbage"))
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="is a file saved by torch.save"):
        tg.load(_saved(torch, torch.ones(2)))
