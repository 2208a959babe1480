"""The deterministic discrete-event engine shared by every model.

See [`simulate`][schedlib.engine.simulate] for the loop (and
[`stream`][schedlib.engine.stream] for a run whose log is handed out as it happens),
[`Phase`][schedlib.engine.Phase] for the order of simultaneous events, and the
Background page of the documentation for the design.
"""

from schedlib.engine.events import Event, Phase, Step
from schedlib.engine.loop import (
    Model,
    Stream,
    Trace,
    default_budget,
    default_window,
    simulate,
    stream,
)

__all__ = [
    "Event",
    "Model",
    "Phase",
    "Step",
    "Stream",
    "Trace",
    "default_budget",
    "default_window",
    "simulate",
    "stream",
]
