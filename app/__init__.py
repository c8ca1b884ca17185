"""Standin's desktop application: a view and controller over the tracer's public API."""
