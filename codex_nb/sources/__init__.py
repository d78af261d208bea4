"""Adapters that bring outside sources into the runtime: model providers (``responses``)."""
