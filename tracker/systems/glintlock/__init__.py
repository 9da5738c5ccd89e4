"""Glintlock: the d20 dual threshold, Mettle, Threat and stress (rulebook: Glintlock)."""
