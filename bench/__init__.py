"""Benchmarks: Standin's tracer side by side with torch.compile. Run `python -m bench`."""
