"""Schemas shared by the conformance suite and bench/local_spanner.py."""

from __future__ import annotations

# The Change Watcher report's table: a shard column computed from a hash, a commit-timestamp column,
# and a NULL_FILTERED index on both that the poll query forces with a table hint.
CHANGE_WATCHER_DDL = [
    """CREATE TABLE DataChanges (
        Id STRING(36) NOT NULL,
        Payload STRING(MAX),
        ShardId INT64 AS (MOD(FARM_FINGERPRINT(Id), 19)) STORED,
        LastUpdated TIMESTAMP OPTIONS (allow_commit_timestamp = true),
    ) PRIMARY KEY (Id)""",
    "CREATE NULL_FILTERED INDEX DataChangesByShardTime ON DataChanges (ShardId, LastUpdated)",
]
CHANGE_WATCHER_INDEX = "DataChangesByShardTime"
SHARDS = list(range(-18, 19))
