"""Pydantic models of the API: one family per resource (Create, Update, Public, ...sPublic)."""
