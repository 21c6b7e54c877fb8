"""Vision: find the Europe board in a picture and read whose trains and stations are where."""
