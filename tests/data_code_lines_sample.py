"""A sample for test_code_lines_counts_code_only: three lines of code, the rest not."""

# a comment


def f(x):
    """A docstring,
    on two lines."""
    y = x + 1  # code with a comment
    return y
