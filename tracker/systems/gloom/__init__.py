"""Gloom: the d20 "roll between" check (rulebook: Gloom)."""
