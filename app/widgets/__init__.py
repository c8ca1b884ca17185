"""Thin Qt widgets: they show plain data and emit `sig_*` signals; they never reach into each other."""
