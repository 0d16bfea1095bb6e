"""Fixtures for the course-tooling tests; helpers live in course_helpers.py."""

import shutil

import pytest

from course_helpers import BASICS


@pytest.fixture
def course(tmp_path):
    """A course folder with solutions/basics.ipynb copied from the fixtures."""
    (tmp_path / "solutions").mkdir()
    shutil.copy(BASICS, tmp_path / "solutions" / "basics.ipynb")
    return tmp_path
