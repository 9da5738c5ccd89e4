"""Alembic environment: runs on the connection tracker hands over, or on a URL for manual use.

tracker calls Alembic through its API with ``config.attributes["connection"]`` set, so the
migration runs inside the caller's transaction. A developer running ``alembic upgrade head`` by
hand gets the URL from ``-x db=PATH_OR_URL``, ``$TRACKER_DB`` or ``alembic.ini``.
"""

from alembic import context

from tracker.store.engine import create_engine_for
from tracker.store.location import resolve_url

config = context.config


def run_migrations(connection) -> None:
    context.configure(connection=connection, target_metadata=None, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("db") or config.get_main_option(
        "sqlalchemy.url"
    )
    engine = create_engine_for(resolve_url(url or None))
    with engine.connect() as conn:
        run_migrations(conn)
    engine.dispose()
