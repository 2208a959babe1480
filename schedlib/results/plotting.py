"""Access to matplotlib for the `--plot` options, with a clear error when it is missing.

Examples
--------
With the `plot` extra installed:

>>> plt = pyplot()
>>> plt.__name__, plt.get_backend().lower()
('matplotlib.pyplot', 'agg')
"""

from __future__ import annotations

from typing import Any

from schedlib.errors import SchedlibError

__all__ = ["pyplot"]


def pyplot() -> Any:
    """Return `matplotlib.pyplot` with the non-interactive Agg backend.

    Raises
    ------
    SchedlibError
        If matplotlib is not installed, naming the `plot` extra.
    """
    try:
        import matplotlib
    except ImportError as error:
        raise SchedlibError(
            "plotting needs matplotlib, which is not installed; "
            "install the 'plot' extra: pip install 'schedlib[plot]'"
        ) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
