"""anywidget widgets (Python side). Import the widget modules directly; nothing is imported here."""
