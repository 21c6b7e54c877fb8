"""Stage 2: measuring a picture at the board's places (sampling, tone map, integral sums, light)."""
