"""Devices as tutorials use them: tensorgrad is CPU-only and says so in PyTorch's words."""

import pytest

from parity import lib, raises, show  # noqa: F401  (lib is a fixture)


def test_devices_print_and_compare_as_pytorch(lib):
    assert show(lib.ones(2).device) == "device(type='cpu')"
    assert show(lib.device("cuda:0")) == "device(type='cuda', index=0)"
    assert str(lib.device("cuda", 1)) == "cuda:1"
    assert lib.ones(1).device == lib.device("cpu")
    assert lib.ones(2).is_cuda is False and lib.cuda.is_available() is False
    assert show(lib.ones(2, device="cpu").to(lib.device("cpu"))) == "tensor([1., 1.])"
    assert show(lib.tensor([1.], device=lib.device("cpu")).cpu()) == "tensor([1.])"


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2, device="cuda"), lambda lib: lib.ones(2).to("cuda"),
    lambda lib: lib.ones(2).cuda(), lambda lib: lib.zeros(1, device=lib.device("cuda"))])
def test_asking_for_cuda_fails_as_without_a_gpu(lib, call):
    with pytest.raises(AssertionError) as info:
        call(lib)
    assert show(str(info.value)).replace("Torch", "tensorgrad") == (
        "tensorgrad not compiled with CUDA enabled")


def test_unknown_device_type(lib):
    raises(RuntimeError, "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, "
           "ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at "
           "start of device string: gpu", lambda: lib.device("gpu"))
