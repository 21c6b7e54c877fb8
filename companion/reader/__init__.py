"""The NFC card reader: wire protocol (pure), serial transport, simulated reader, card identity,
registry and payments. See companion/reader/README.md."""
