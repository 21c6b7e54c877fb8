"""Stage 5: a whole reading of one picture (decode, locate if needed, classify, check)."""
