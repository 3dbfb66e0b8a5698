"""Resource families: records, views and state machines shared by routes and the control API."""
