"""``tracker odds``: exact probabilities of every outcome."""

COMMANDS: list = []
