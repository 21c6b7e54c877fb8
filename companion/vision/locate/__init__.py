"""Stage 4: finding the board in a picture (candidates, registration, saved calibration)."""
