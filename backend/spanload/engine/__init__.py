"""The load engine: the supervisor and its worker transports, the aggregator, reconciliation,
the engine thread and thresholds."""
