"""Short tracebacks for errors raised inside tensorgrad (IPython start-up file).

Many lessons show an error on purpose: a second `backward()` through a freed graph, an in-place
change of a saved tensor. The error is raised deep inside the library, and a full traceback runs
through seven to fourteen of its frames before it reaches the message. The learner's code is the
first frame; the library's own frames between it and the `raise` only hide the message.

IPython hides every frame whose local variables hold `__tracebackhide__ = True`, except the last
one, and prints `[... skipping hidden N frame]` in their place. This file marks tensorgrad's frames
that way, just before IPython formats a traceback; the frame that raised the error stays, so the
message still says where it came from. Frames of your own code, NumPy and everything else are left
alone.

`./run` copies this file into the clone's IPython folder (`.ipython/profile_default/startup/`), so
it runs in every kernel started by `./run lab`, `./run notebooks` and `./run test`. Set the
environment variable TENSORGRAD_FULL_TRACEBACKS=1 to see every frame again.
"""

import os


def _library_folder():
    import tensorgrad

    return os.path.dirname(os.path.abspath(tensorgrad.__file__)) + os.sep


def _tracebacks(error):
    """The tracebacks of `error` and of the errors chained to it (`raise ... from`, `during`)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error.__traceback__
        error = error.__cause__ or error.__context__


def hide_library_frames(tb, library):
    """Mark the library's frames of one traceback hidden, except the frame that raised."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    for entry in entries[:-1]:
        if entry.tb_frame.f_code.co_filename.startswith(library):
            entry.tb_frame.f_locals["__tracebackhide__"] = True


def _install():
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or os.environ.get("TENSORGRAD_FULL_TRACEBACKS"):
        return
    formatter = shell.InteractiveTB
    original = formatter.structured_traceback

    def structured_traceback(*args, **kwargs):
        evalue = args[1] if len(args) > 1 else kwargs.get("evalue")
        if isinstance(evalue, BaseException):
            try:
                library = _library_folder()
            except Exception:  # tensorgrad not importable: nothing to hide
                library = None
            if library:
                for tb in _tracebacks(evalue):
                    hide_library_frames(tb, library)
        return original(*args, **kwargs)

    formatter.structured_traceback = structured_traceback


_install()
del _install
