"""Pure rule engines: numbers and dice in, immutable results out.

Nothing in this package reads the clock, the database or the terminal; that is what lets the
tests walk every die face and every 3d6 total.
"""
