"""The deterministic discrete-event engine shared by every model.

See [`simulate`][schedlib.engine.simulate] for the loop,
[`Phase`][schedlib.engine.Phase] for the order of simultaneous events, and the
Background page of the documentation for the design.
"""

from schedlib.engine.events import Event, Phase, Step
from schedlib.engine.loop import Model, Trace, default_budget, default_window, simulate

__all__ = [
    "Event",
    "Model",
    "Phase",
    "Step",
    "Trace",
    "default_budget",
    "default_window",
    "simulate",
]
