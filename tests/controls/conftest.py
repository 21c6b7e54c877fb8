from controls_harness import harness, mock

__all__ = ["harness", "mock"]
