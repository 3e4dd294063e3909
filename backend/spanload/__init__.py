"""Spanload: a dashboard and control plane for live Cloud Spanner load tests."""

__version__ = "0.1.0"
