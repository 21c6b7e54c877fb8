"""Speed and memory measurements. Run them all with ``python -m benchmarks`` (or one script)."""
