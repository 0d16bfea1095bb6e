"""Fixtures for the course-tooling tests; helpers live in course_helpers.py."""

import shutil

import pytest

from course_helpers import BASICS
from tensorgrad_course import kernel, sandbox

# Kernels run in the bubblewrap sandbox whenever this machine has it (CI installs it);
# without it the grading tests still run, unsandboxed, and the sandbox tests skip.
kernel.SANDBOX_BY_DEFAULT = sandbox.bwrap()[0] is not None


@pytest.fixture
def course(tmp_path):
    """A course folder with solutions/basics.ipynb copied from the fixtures."""
    (tmp_path / "solutions").mkdir()
    shutil.copy(BASICS, tmp_path / "solutions" / "basics.ipynb")
    return tmp_path
