package clienttest

// Change streams through the official Go client. Expected values come from Spanner's
// change stream documentation (see tests/localspanner/test_change_streams.py for the
// rules each expectation follows).

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
)

type csColumnType struct {
	Name            string           `spanner:"name"`
	Type            spanner.NullJSON `spanner:"type"`
	IsPrimaryKey    bool             `spanner:"is_primary_key"`
	OrdinalPosition int64            `spanner:"ordinal_position"`
}

type csMod struct {
	Keys      spanner.NullJSON `spanner:"keys"`
	NewValues spanner.NullJSON `spanner:"new_values"`
	OldValues spanner.NullJSON `spanner:"old_values"`
}

type csDataChange struct {
	CommitTimestamp                      time.Time       `spanner:"commit_timestamp"`
	RecordSequence                       string          `spanner:"record_sequence"`
	ServerTransactionID                  string          `spanner:"server_transaction_id"`
	IsLastRecordInTransactionInPartition bool            `spanner:"is_last_record_in_transaction_in_partition"`
	TableName                            string          `spanner:"table_name"`
	ColumnTypes                          []*csColumnType `spanner:"column_types"`
	Mods                                 []*csMod        `spanner:"mods"`
	ModType                              string          `spanner:"mod_type"`
	ValueCaptureType                     string          `spanner:"value_capture_type"`
	NumberOfRecordsInTransaction         int64           `spanner:"number_of_records_in_transaction"`
	NumberOfPartitionsInTransaction      int64           `spanner:"number_of_partitions_in_transaction"`
	TransactionTag                       string          `spanner:"transaction_tag"`
	IsSystemTransaction                  bool            `spanner:"is_system_transaction"`
}

type csHeartbeat struct {
	Timestamp time.Time `spanner:"timestamp"`
}

type csChild struct {
	Token                 string   `spanner:"token"`
	ParentPartitionTokens []string `spanner:"parent_partition_tokens"`
}

type csChildren struct {
	StartTimestamp  time.Time  `spanner:"start_timestamp"`
	RecordSequence  string     `spanner:"record_sequence"`
	ChildPartitions []*csChild `spanner:"child_partitions"`
}

type csRecord struct {
	DataChangeRecord      []*csDataChange `spanner:"data_change_record"`
	HeartbeatRecord       []*csHeartbeat  `spanner:"heartbeat_record"`
	ChildPartitionsRecord []*csChildren   `spanner:"child_partitions_record"`
}

// readStream runs one read function call and returns its records in order.
func readStream(ctx context.Context, client *spanner.Client, stream string, start time.Time, end *time.Time, token *string) ([]*csRecord, error) {
	stmt := spanner.Statement{
		SQL:    "SELECT ChangeRecord FROM READ_" + stream + " (@start, @end, @token, 100)",
		Params: map[string]any{"start": start, "end": end, "token": token},
	}
	if end == nil {
		stmt.Params["end"] = spanner.NullTime{}
	}
	if token == nil {
		stmt.Params["token"] = spanner.NullString{}
	}
	var out []*csRecord
	err := client.Single().Query(ctx, stmt).Do(func(row *spanner.Row) error {
		var recs []*csRecord
		if err := row.Columns(&recs); err != nil {
			return err
		}
		out = append(out, recs...)
		return nil
	})
	return out, err
}

func jsonOf(t *testing.T, j spanner.NullJSON) any {
	t.Helper()
	b, err := json.Marshal(j.Value)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestChangeStreams(t *testing.T) {
	startServer(t)
	captures := []string{"OLD_AND_NEW_VALUES", "NEW_ROW", "NEW_VALUES", "NEW_ROW_AND_OLD_VALUES"}
	ddl := []string{"ALTER DATABASE db SET OPTIONS (spanload_split_rows = 8)"}
	for i, c := range captures {
		ddl = append(ddl,
			fmt.Sprintf("CREATE TABLE T%d (Id INT64 NOT NULL, A STRING(MAX), B INT64) PRIMARY KEY (Id)", i),
			fmt.Sprintf("CREATE CHANGE STREAM S%d FOR T%d OPTIONS (value_capture_type = '%s')", i, i, c))
	}
	client := newDatabase(t, "changestreams", ddl)
	ctx := context.Background()

	t.Run("mods per value capture type", func(t *testing.T) {
		// the update changes A only; the delete removes row 2
		update := map[string][2]string{
			"OLD_AND_NEW_VALUES":     {`{"A":"b"}`, `{"A":"a"}`},
			"NEW_ROW":                {`{"A":"b","B":"10"}`, `{}`},
			"NEW_VALUES":             {`{"A":"b"}`, `{}`},
			"NEW_ROW_AND_OLD_VALUES": {`{"A":"b","B":"10"}`, `{"A":"a"}`},
		}
		deleted := map[string]string{"OLD_AND_NEW_VALUES": `{"A":"x","B":"20"}`, "NEW_ROW": `{}`, "NEW_VALUES": `{}`, "NEW_ROW_AND_OLD_VALUES": `{"A":"x","B":"20"}`}
		for i, c := range captures {
			table, stream := fmt.Sprintf("T%d", i), fmt.Sprintf("S%d", i)
			start := time.Now()
			var stamps []time.Time
			for k, ms := range [][]*spanner.Mutation{
				{spanner.Insert(table, []string{"Id", "A", "B"}, []any{int64(1), "a", int64(10)}), spanner.Insert(table, []string{"Id", "A", "B"}, []any{int64(2), "x", int64(20)})},
				{spanner.Update(table, []string{"Id", "A"}, []any{int64(1), "b"})},
				{spanner.Delete(table, spanner.Key{int64(2)})},
			} {
				ts, err := client.Apply(ctx, ms, spanner.TransactionTag(fmt.Sprintf("step-%d", k)))
				if err != nil {
					t.Fatalf("%s: apply: %v", c, err)
				}
				stamps = append(stamps, ts)
			}
			end := time.Now()
			initial, err := readStream(ctx, client, stream, start, &end, nil)
			if err != nil {
				t.Fatalf("%s: initial query: %v", c, err)
			}
			if len(initial) != 1 || len(initial[0].ChildPartitionsRecord) != 1 || len(initial[0].ChildPartitionsRecord[0].ChildPartitions) != 1 {
				t.Fatalf("%s: initial query answered %+v, want one child partitions record with one partition", c, initial)
			}
			tok := initial[0].ChildPartitionsRecord[0].ChildPartitions[0].Token
			recs, err := readStream(ctx, client, stream, start, &end, &tok)
			if err != nil {
				t.Fatalf("%s: partition query: %v", c, err)
			}
			var got []string
			for _, r := range recs {
				for _, d := range r.DataChangeRecord {
					if d.ValueCaptureType != c || d.TableName != table || d.NumberOfRecordsInTransaction != 1 || !d.IsLastRecordInTransactionInPartition {
						t.Errorf("%s: record %+v", c, d)
					}
					var mods []string
					for _, m := range d.Mods {
						k, n, o := jsonOf(t, m.Keys), jsonOf(t, m.NewValues), jsonOf(t, m.OldValues)
						kb, _ := json.Marshal(k)
						nb, _ := json.Marshal(n)
						ob, _ := json.Marshal(o)
						mods = append(mods, string(kb)+" "+string(nb)+" "+string(ob))
					}
					got = append(got, d.CommitTimestamp.Format(time.RFC3339Nano)+" "+d.TransactionTag+" "+d.ModType+" "+strings.Join(mods, " | "))
				}
			}
			want := []string{
				stamps[0].Format(time.RFC3339Nano) + ` step-0 INSERT {"Id":"1"} {"A":"a","B":"10"} {} | {"Id":"2"} {"A":"x","B":"20"} {}`,
				stamps[1].Format(time.RFC3339Nano) + ` step-1 UPDATE {"Id":"1"} ` + update[c][0] + " " + update[c][1],
				stamps[2].Format(time.RFC3339Nano) + ` step-2 DELETE {"Id":"2"} {} ` + deleted[c],
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %q\nwant %q", c, got, want)
			}
		}
	})

	t.Run("start before the retention period is refused", func(t *testing.T) {
		_, err := readStream(ctx, client, "S0", time.Now().Add(-48*time.Hour), nil, nil)
		if spanner.ErrCode(err) != codes.OutOfRange || !strings.Contains(err.Error(), "too far in the past") {
			t.Fatalf("err = %v, want OUT_OF_RANGE start_timestamp is too far in the past", err)
		}
	})

	t.Run("heartbeats", func(t *testing.T) {
		start := time.Now()
		end := start.Add(500 * time.Millisecond)
		initial, err := readStream(ctx, client, "S1", start, &end, nil)
		if err != nil {
			t.Fatal(err)
		}
		tok := initial[0].ChildPartitionsRecord[0].ChildPartitions[0].Token
		recs, err := readStream(ctx, client, "S1", start, &end, &tok)
		if err != nil {
			t.Fatal(err)
		}
		var last time.Time
		for _, r := range recs {
			if len(r.HeartbeatRecord) != 1 || len(r.DataChangeRecord)+len(r.ChildPartitionsRecord) != 0 {
				t.Fatalf("record %+v, want heartbeats only", r)
			}
			ts := r.HeartbeatRecord[0].Timestamp
			if !ts.After(last) || ts.Before(start) || ts.After(end) {
				t.Fatalf("heartbeat %v after %v, outside [%v, %v]", ts, last, start, end)
			}
			last = ts
		}
		if len(recs) == 0 {
			t.Fatal("no heartbeat before the end timestamp")
		}
	})

	t.Run("children after a split divides, every change once", func(t *testing.T) {
		start := time.Now()
		var want []csChange
		for i := int64(0); i < 40; i++ {
			id := (i * 7) % 20
			ts, err := client.Apply(ctx, []*spanner.Mutation{spanner.InsertOrUpdate("T2", []string{"Id", "B"}, []any{id, i})})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, csChange{ts: ts, id: id, b: i})
		}
		end := time.Now()
		read := func(token *string, from time.Time) ([]csChange, []*csChildren, error) {
			recs, err := readStream(ctx, client, "S2", from, &end, token)
			var changes []csChange
			var children []*csChildren
			for _, r := range recs {
				for _, d := range r.DataChangeRecord {
					for _, m := range d.Mods {
						changes = append(changes, csChangeOf(d.CommitTimestamp, m.Keys.Value, m.NewValues.Value, "Id", "B"))
					}
				}
				children = append(children, r.ChildPartitionsRecord...)
			}
			return changes, children, err
		}
		checkExactlyOnce(t, want, read, start)
	})
}

// csChange is one mod a reader received: its commit timestamp, its key and its new value.
type csChange struct {
	ts    time.Time
	id, b int64
}

// csChangeOf reads a mod's key column key and new value column val (INT64s, JSON strings).
func csChangeOf(ts time.Time, keys, newValues any, key, val string) csChange {
	c := csChange{ts: ts}
	k, _ := keys.(map[string]any)
	n, _ := newValues.(map[string]any)
	_, _ = fmt.Sscan(fmt.Sprint(k[key]), &c.id)
	_, _ = fmt.Sscan(fmt.Sprint(n[val]), &c.b)
	return c
}

// csRead is one read function call of a partition (token nil: the initial query) from a
// start timestamp: the changes it received and the child partitions records it ended with.
type csRead func(token *string, from time.Time) ([]csChange, []*csChildren, error)

// checkExactlyOnce follows every partition from start, each child from its parent's
// child partitions record, and checks that a split divided (a child partitions record
// came, each child naming its parent) and that the changes received are want, each once.
func checkExactlyOnce(t *testing.T, want []csChange, read csRead, start time.Time) {
	t.Helper()
	var mu sync.Mutex
	var got []csChange
	children := 0
	var wg sync.WaitGroup
	var follow func(token string, from time.Time)
	spawn := func(kids []*csChildren, parent string) {
		for _, cp := range kids {
			for _, ch := range cp.ChildPartitions {
				if parent != "" && !reflect.DeepEqual(ch.ParentPartitionTokens, []string{parent}) {
					t.Errorf("child %s names parents %v, want [%s]", ch.Token, ch.ParentPartitionTokens, parent)
				}
				if parent != "" {
					mu.Lock()
					children++
					mu.Unlock()
				}
				wg.Add(1)
				go follow(ch.Token, cp.StartTimestamp)
			}
		}
	}
	follow = func(token string, from time.Time) {
		defer wg.Done()
		changes, kids, err := read(&token, from)
		if err != nil {
			t.Errorf("partition %s: %v", token, err)
			return
		}
		mu.Lock()
		got = append(got, changes...)
		mu.Unlock()
		spawn(kids, token)
	}
	_, initial, err := read(nil, start)
	if err != nil {
		t.Fatal(err)
	}
	spawn(initial, "")
	wg.Wait()
	if children == 0 {
		t.Fatal("the split divided (8 rows per split, 20 rows) but no child partitions record came")
	}
	less := func(s []csChange) func(i, j int) bool {
		return func(i, j int) bool { return s[i].ts.Before(s[j].ts) }
	}
	sort.Slice(got, less(got))
	sort.Slice(want, less(want))
	if len(got) != len(want) {
		t.Fatalf("got %d changes, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].ts.Equal(want[i].ts) || got[i].id != want[i].id || got[i].b != want[i].b {
			t.Fatalf("change %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
