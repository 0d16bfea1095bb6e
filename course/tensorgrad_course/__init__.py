"""Course tooling: exercise generation, student self-checks and the grader.

The course has one source of truth, ``solutions/``: notebooks whose answers and
instructor-only tests are marked with nbgrader's markers and cell metadata.
Everything else is derived from it:

* :mod:`.generate` writes the student version, ``exercises/`` (``tensorgrad-course build``);
* :mod:`.checks` declares a task's named tests once, for the student's self-check
  (``from tensorgrad_course import check``) and for the grader; the self-check
  speaks English or, after ``use_language("zh")``, Chinese (:mod:`.texts`);
* :mod:`.grade` scores submissions with the instructor's tests, comparing values
  in its own process with those of the instructor's solution
  (``tensorgrad-course grade``).

It is a distribution of its own, ``tensorgrad-course`` (``course/pyproject.toml``),
installed beside the library: the library ships no grader. The tooling works on
notebooks only: none of its modules imports the tensorgrad library. Building and
reading reports do not depend on it; grading runs the notebooks, which do
(:mod:`.library` finds it, without importing it).

Authors: ``docs/authoring-exercises.md``. Instructors: ``docs/instructors.md`` (an index of docs/instructors/).

Module map (every module; tests/course/test_course_layers.py checks that none is missing). The
import-linter contract in ../pyproject.toml keeps the package in layers, top to bottom, with no
circle, and keeps the tensorgrad library out of it.

=========================  ===================================================================
**In the student's kernel** (the self-check; exercise notebooks import these)
----------------------------------------------------------------------------------------------
``checks``                 ``check(name)``: named tests, self-check lines, grader records
``measures``               verdicts the grader makes from plain data (loss, node order, gradcheck)
``probes``                 probes of earlier tasks, for ``TaskCheck.needs``
``values``                 values as JSON records; the comparison both sides use
``selfcheck``              ``CheckFailure``, the failure a self-check raises
``texts``                  the student-facing texts in English and Chinese; ``use_language``;
                           whether the kernel is being graded
**Building the exercises** (solutions/ -> exercises/)
----------------------------------------------------------------------------------------------
``generate``               solutions/ -> exercises/, with a leak check and ``--check``
``markers``                ``### BEGIN/END SOLUTION`` and ``HIDDEN TESTS`` regions
``notebooks``              reading/writing notebooks byte-stably, nbgrader metadata
``nbgrader_source``        nbgrader source notebooks whose checks compare values
**Grading**
----------------------------------------------------------------------------------------------
``exercise_set``           what the grader knows of a set: tasks, stubs, the release
``identify``               which exercise set a submitted file belongs to
``expected``               run the solution once per set (cached); read records
``assemble``               build the notebook the grader runs; the integrity report
``guard``                  grader-injected cells that undo monkeypatching
``_guard_kernel``          the guard's snapshot, audit hook and check, as they run in the kernel
``grade``                  scoring one submission, and a batch in a process pool
``reports``                JSON per submission, CSV, Gradescope, summary
``gradescope``             a Gradescope autograder zip
**A kernel under limits** (how each graded notebook runs)
----------------------------------------------------------------------------------------------
``kernel``                 run a notebook in a resource-limited kernel with deadlines
``defaults``               the defaults of the per-kernel limits, in one place
``sandbox``                bubblewrap around every student kernel
``_isolate``               namespaces of each kernel inside the sandbox (run as a script)
``_zygote``                the fork server that starts grading kernels fast (run as a script)
``_launch_limited``        the exec wrapper that applies the limits (fallback; run as a script)
**Shared**
----------------------------------------------------------------------------------------------
``cli``                    the ``tensorgrad-course`` command
``errors``                 the exception classes users see (one clear line each)
``library``                where the tensorgrad library is (for kernels, the sandbox, the zip)
``version``                the grader's version
=========================  ===================================================================
"""

__all__ = ["CheckFailure", "check", "use_language"]


def __getattr__(name: str):
    # ``check``, ``CheckFailure`` and ``use_language`` are imported on first use (they need NumPy),
    # so that the ``tensorgrad-course`` command starts, and reports a missing dependency in one
    # line, without it.
    if name in __all__:
        from . import checks, texts

        globals().update(CheckFailure=checks.CheckFailure, check=checks.check, use_language=texts.use_language)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
