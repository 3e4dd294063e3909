"""The control plane: the run service, the live hub and run comparison."""
