"""Requests that wait for a person: the broker (``requests``) and the headless answer policy."""
