"""Stage 3: what each space and city shows (colour models, classifier,
adaptation, check list, profile)."""
