"""Stage 1: where things are on the board (space boxes, city spots,
homographies; the board as drawn)."""
