"""The rule systems: one package each, holding its pure rules (numbers and dice in, immutable
results out), its exact odds, how it decides a roll against the campaign as it stands, and its
words. ``registry`` finds them through the ``tracker.systems`` entry-point group; ``base`` says
what the rest of tracker asks of a system.

Nothing in these packages reads the clock, the database or the terminal; that is what lets the
tests walk every die face and every 3d6 total.
"""
