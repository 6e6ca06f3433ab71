"""What the recordings' table scripts (launch_cost.py, torch_launch_state.py, slice_trace.py) compute alike."""


def med(xs):
    """The median (the mean of the two middle values of an even count); nan for none, so a table cell can say so."""
    s = sorted(xs)
    n = len(s)
    return (s[n // 2] + s[(n - 1) // 2]) / 2 if n else float("nan")
