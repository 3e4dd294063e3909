package admin

import (
	"reflect"
	"testing"
)

func TestMissingStatementsByObjectName(t *testing.T) {
	ddl := []string{
		"CREATE TABLE Singers (\n  SingerId INT64 NOT NULL,\n) PRIMARY KEY (SingerId)",
		"CREATE NULL_FILTERED INDEX SingersByShardLastUpdated ON Singers (ShardId, LastUpdated)",
	}
	existing := []string{"CREATE TABLE `Singers` (\n SingerId INT64 NOT NULL) PRIMARY KEY (SingerId)"}
	got := MissingStatements(ddl, existing)
	if !reflect.DeepEqual(got, ddl[1:]) {
		t.Errorf("missing %v; want the index only", got)
	}
	if got := MissingStatements(ddl, ddl); len(got) != 0 {
		t.Errorf("everything exists but %v is missing", got)
	}
}
