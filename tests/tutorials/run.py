"""Run a tutorial program with `torch` or with tensorgrad standing in for it, and capture what it
prints. `python -m tests.tutorials.run` (with torch installed) records torch's output of every
program in torch_outputs.json, which tests/test_tutorials.py compares tensorgrad against."""

import contextlib
import importlib
import io
import json
import pathlib
import re
import sys

from .programs import PROGRAMS

OUTPUTS = pathlib.Path(__file__).with_name("torch_outputs.json")
ALIASED = ["", ".autograd", ".autograd.forward_ad", ".autograd.functional", ".autograd.graph",
           ".autograd.profiler", ".func", ".nn", ".nn.functional", ".optim"]


@contextlib.contextmanager
def as_torch(library):
    """While active, `import torch...` gives `library` (tensorgrad) and its submodules."""
    if library == "torch":
        yield importlib.import_module("torch")
        return
    module = importlib.import_module(library)
    saved = {name: sys.modules.get(name) for name in ("torch" + suffix for suffix in ALIASED)}
    try:
        for suffix in ALIASED:
            sys.modules["torch" + suffix] = importlib.import_module(library + suffix)
        yield module
    finally:
        for name, value in saved.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value


def run(source, library):
    """What the program prints (an exception ends it, printed as `ExceptionType: message`)."""
    output = io.StringIO()
    with as_torch(library) as torch, contextlib.redirect_stdout(output):
        torch.manual_seed(0)
        try:
            exec(compile(source, "<tutorial>", "exec"), {"torch": torch})  # noqa: S102
        except Exception as error:  # noqa: BLE001  (the program's own failure is its output)
            print(f"{type(error).__name__}: {error}")
    return output.getvalue()


def normalized(text):
    """tensorgrad prints its own name where torch prints `torch` (docs/library.md: deliberate
    differences), and memory addresses differ on every run."""
    return re.sub(r"0x[0-9a-f]+", "0x…", text.replace("tensorgrad", "torch"))


if __name__ == "__main__":
    outputs = {topic: normalized(run(source, "torch")) for topic, source in PROGRAMS.items()}
    OUTPUTS.write_text(json.dumps(outputs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded torch's output of {len(outputs)} programs in {OUTPUTS}")
