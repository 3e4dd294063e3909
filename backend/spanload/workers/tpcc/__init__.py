"""The TPC-C workload: its load, its five transactions, its terminals and its consistency checks."""
