"""The table's web app: a front door beside the command line.

It calls the same app layer the commands do (``tracker.app``) and ships its pages, script and
styles in ``static/``: no build step, nothing fetched at run time. ``tracker serve`` starts it;
``server.make_app`` is the whole app for a test to drive.
"""
