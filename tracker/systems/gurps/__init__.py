"""GURPS: 3d6 roll-under success rolls, contests and fright checks (rulebook: GURPS)."""
