"""Events: the bus every source emits on and the ``EventSource`` protocol widgets read."""
