"""Stage 6: watching a camera (frame sources, readers, the live watcher and its events)."""
