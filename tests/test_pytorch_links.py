"""Links to PyTorch's pages lead somewhere: none names tensorgrad, the docs links have one form,
and (with torch installed) each link in the library is one that PyTorch itself prints.

Every link to pytorch.org or github.com/pytorch in this project sits in a message that
tensorgrad gives word for word as PyTorch does (the error that points to the autograd.Function
docs, gradcheck's notes, a warning naming a pull request). Reading torch's module name as
tensorgrad's once turned two of them into pages that do not exist
(`.../autograd.html#tensorgrad.autograd.Function`,
`.../generated/tensorgrad.use_deterministic_algorithms.html`).
"""

import functools
import importlib.util
import itertools
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"(?:https?://)?(?:docs\.)?(?:pytorch\.org|github\.com/pytorch)/[^\s)\"'`>\\]*")
# PyTorch's documentation, as its messages in torch 2.13 print it (the site now also answers at
# docs.pytorch.org): a page, a generated page named after the torch function, an anchor.
DOCS_FORM = re.compile(r"https://pytorch\.org/docs/stable/(generated/torch\.[\w.]+|[a-z_]+)\.html"
                       r"(#torch\.[\w.]+)?")
GITHUB_FORM = re.compile(r"(https://)?github\.com/pytorch/pytorch/(issues|pull)/\d+")


def tracked_text_files():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    for name in names:
        path = ROOT / name
        if path.suffix in {".png", ".svg", ".gif", ".jpg", ".ico", ".woff", ".woff2"}:
            continue
        try:
            yield name, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue


@functools.cache
def links():
    found = []
    for name, text in tracked_text_files():
        for match in LINK.finditer(text):
            found.append((name, match.group(0).rstrip(".,;:")))
    return tuple(found)


def test_there_are_links_to_check():
    assert len({link for _, link in links()}) >= 5


def test_no_link_to_pytorch_names_tensorgrad():
    wrong = [f"{name}: {link}" for name, link in links() if "tensorgrad" in link]
    assert not wrong, "links whose torch names were read as tensorgrad's:\n" + "\n".join(wrong)


def test_every_link_has_one_of_the_two_forms():
    wrong = [f"{name}: {link}" for name, link in links()
             if not (DOCS_FORM.fullmatch(link) or GITHUB_FORM.fullmatch(link))]
    assert not wrong, "\n".join(wrong)


def test_each_link_in_the_library_is_one_pytorch_prints():
    spec = importlib.util.find_spec("torch")  # where it is, without the seconds of importing it
    if spec is None:
        pytest.skip("torch is not installed")
    package = Path(spec.origin).parent
    missing = {link for name, link in links() if name.startswith("tensorgrad/")}
    native = package / "lib" / "libtorch_python.so"  # the messages written in C++
    if native.exists():
        data = native.read_bytes()
        missing = {link for link in missing if link.encode() not in data}
    # the Python sources, where autograd's and optim's messages most likely are first
    for path in itertools.chain(package.glob("autograd/*.py"), package.glob("optim/*.py"),
                                package.rglob("*.py")):
        if not missing:
            break
        text = path.read_text(encoding="utf-8", errors="replace")
        missing = {link for link in missing if link not in text}
    assert not missing, f"links in tensorgrad/ that torch does not print: {missing}"
