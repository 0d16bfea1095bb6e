"""Course tooling: exercise generation, student self-checks and the grader.

The course has one source of truth, ``solutions/``: notebooks whose answers and
instructor-only tests are marked with nbgrader's markers and cell metadata.
Everything else is derived from it:

* :mod:`.generate` writes the student version, ``exercises/`` (``tensorgrad-course build``);
* :mod:`.selfcheck` gives students specific feedback inside their notebooks;
* :mod:`.grade` scores submissions with the instructor's tests
  (``tensorgrad-course grade``).

The tooling works on notebooks only. It never imports the tensorgrad library itself,
so it keeps working while the library is being changed, and a broken library cannot
break building or grading.

Module map:

========================  ====================================================
``errors``                the exception classes users see (one clear line each)
``markers``               ``### BEGIN/END SOLUTION`` and ``HIDDEN TESTS`` regions
``notebooks``             reading/writing notebooks byte-stably, nbgrader metadata
``generate``              solutions/ -> exercises/, with a leak check and ``--check``
``selfcheck``             ``check_tensor``, ``check_close``... for student notebooks
``exercise_set``          what the grader knows of a set: tasks, stubs, the release
``assemble``              build the notebook the grader runs; the integrity report
``guard``                 grader-injected cells that undo monkeypatching
``kernel``                run a notebook in a resource-limited kernel with deadlines
``_launch_limited``       the tiny exec wrapper that applies the resource limits
``grade``                 scoring one submission, and a batch in a process pool
``reports``               CSV, Gradescope results.json, report.json, summary
``cli``                   the ``tensorgrad-course`` command
========================  ====================================================
"""
