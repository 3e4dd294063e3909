"""The run store: SQLAlchemy models, the queries the API calls, and the background writer."""
