"""Stand-in for Agent Zero's helpers/errors.py: the control-flow exceptions (the same three
classes in v1.7, v2.6 and the newest)."""


class RepairableException(Exception):
    """An error the model is told about and may repair."""


class InterventionException(Exception):
    """The user intervened: the rest of the loop iteration is skipped."""


class HandledException(Exception):
    """Ends the message loop (e.g. a safety check terminated the agent)."""
