"""Code Mode (spec 05): the model writes JavaScript that calls other tools.

``exec`` runs the script in a fresh V8 isolate (mini-racer) on a host thread; every
``tools.X(...)`` call goes back through the session's dispatch pipeline.
"""
