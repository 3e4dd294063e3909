"""Spanner access: client construction per target, benchmark schemas, server-side stats, the local server."""
