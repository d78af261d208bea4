"""Helpers shared by the tests: real processes and waits, never fakes of a protocol.

``pyproject.toml`` puts ``tests/`` on ``sys.path`` (pytest's ``pythonpath``), so a test module
anywhere below ``tests/`` imports these as ``from helpers.NAME import ...``.
"""
