"""What only the demo, the tests and the benchmarks use: the board renderer, the simulated
camera and table, camera variations and the truth-reading oracle. The vision pipeline, the
service and the web app never import this package."""
