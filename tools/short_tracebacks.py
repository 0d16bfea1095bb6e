"""Short tracebacks for errors raised inside tensorgrad (IPython start-up file).

Many lessons show an error on purpose: a second `backward()` through a freed graph, an in-place
change of a saved tensor. The error is raised deep inside the library, and a full traceback runs
through seven to fourteen of its frames before it reaches the message. The learner's code is
where the learner can change something; the library's own frames only hide the message.

So a traceback ends at the learner's line: the frames that follow the last frame outside
tensorgrad (the learner's cell, or a function of theirs that the library called back) are left
out, and the message comes right after that line. Library frames between two frames of the
learner's (a hook of theirs, called by the engine) are marked `__tracebackhide__`, which IPython
shows as one `[... skipping hidden N frame]` line. The same holds for each error chained to it
(`raise ... from`, "During handling of..."). Frames of NumPy and everything else are kept. The
traceback objects themselves are not changed: IPython formats shortened copies, so `%debug` still
reaches the frame that raised.

`./run` copies this file into the clone's IPython folder (`.ipython/profile_default/startup/`), so
it runs in every kernel started by `./run lab`, `./run notebooks` and `./run test`;
tools/execute_notebooks.py runs it in its kernels itself. Set the environment variable
TENSORGRAD_FULL_TRACEBACKS=1 to see every frame again.
"""

import os
import types


def _library_folder():
    import tensorgrad

    return os.path.dirname(os.path.abspath(tensorgrad.__file__)) + os.sep


def _chain(error):
    """`error` and the errors chained to it (`raise ... from`, `during handling`)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def _in_library(entry, library):
    return entry.tb_frame.f_code.co_filename.startswith(library)


def ending_at_the_learners_line(tb, library):
    """A copy of the traceback `tb` that ends at its last frame outside the library (the whole of
    it when every frame is the library's), with the library's frames before that marked hidden."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    outside = [i for i, entry in enumerate(entries) if not _in_library(entry, library)]
    if not outside:
        return entries[0] if entries else None
    kept = entries[:outside[-1] + 1]
    for entry in kept:
        if _in_library(entry, library):
            entry.tb_frame.f_locals["__tracebackhide__"] = True
    copy = None
    for entry in reversed(kept):  # built from the end, as each entry points at the next
        copy = types.TracebackType(copy, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return copy


def _install():
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or os.environ.get("TENSORGRAD_FULL_TRACEBACKS"):
        return
    formatter = shell.InteractiveTB
    if getattr(formatter, "_tensorgrad_short", False):  # run twice (start-up file and exec_files)
        return
    formatter._tensorgrad_short = True
    original = formatter.structured_traceback

    def structured_traceback(*args, **kwargs):
        evalue = args[1] if len(args) > 1 else kwargs.get("evalue")
        try:
            library = _library_folder() if isinstance(evalue, BaseException) else None
        except Exception:  # tensorgrad not importable: nothing to shorten
            library = None
        if not library:
            return original(*args, **kwargs)
        full = [(error, error.__traceback__) for error in _chain(evalue)]
        for error, tb in full:
            error.__traceback__ = ending_at_the_learners_line(tb, library)
        if len(args) > 2 and args[2] is full[0][1]:
            args = (*args[:2], evalue.__traceback__, *args[3:])
        elif kwargs.get("etb") is not None and kwargs["etb"] is full[0][1]:
            kwargs["etb"] = evalue.__traceback__
        try:
            return original(*args, **kwargs)
        finally:  # the errors keep their whole tracebacks (%debug, sys.last_traceback)
            for error, tb in full:
                error.__traceback__ = tb

    formatter.structured_traceback = structured_traceback


_install()
del _install
