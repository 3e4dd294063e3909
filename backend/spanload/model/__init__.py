"""The contracts every layer shares: settings, run config, samples, the worker protocol, presets,
run state, live messages, HDR helpers and series arithmetic. Imports nothing else of spanload."""
