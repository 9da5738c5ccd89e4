"""Alembic migrations, shipped inside the package as ``tracker.migrations``."""
