"""Runs: their configuration, presets, supervision, aggregation and live fan-out."""
