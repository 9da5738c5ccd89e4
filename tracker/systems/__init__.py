"""The rule systems: one package each, holding its pure rules (numbers and dice in, immutable
results out) and its exact odds.

Nothing in these packages reads the clock, the database or the terminal; that is what lets the
tests walk every die face and every 3d6 total.
"""
