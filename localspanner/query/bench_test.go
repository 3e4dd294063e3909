package query

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/value"
)

const (
	watcherHinted   = "SELECT * FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit"
	watcherUnhinted = "SELECT * FROM Changes WHERE ShardId IN UNNEST(@shards) AND LastUpdated > @ts ORDER BY LastUpdated, Id LIMIT @limit"
	pointLookup     = "SELECT Name, Rating FROM Players WHERE PlayerId = @id"
	// The form Spanload's watcher sends: it resumes after the last (timestamp, key).
	watcherResumeHinted = "SELECT Id, ShardId, LastUpdated FROM Changes@{FORCE_INDEX=ChangesByShard} WHERE ShardId IN UNNEST(@shards) AND (LastUpdated > @ts OR (LastUpdated = @ts AND Id > @key)) ORDER BY LastUpdated, Id LIMIT @limit"
)

func watcherParams(ts time.Time) Params {
	shards := list()
	for s := -18; s <= 18; s++ {
		shards.GetListValue().Values = append(shards.GetListValue().Values, str(itoa(int64(s))))
	}
	return Params{
		"shards": p(shards, arrayOf(tInt64)),
		"ts":     p(str(ts.Format(time.RFC3339Nano)), tTimestamp),
		"limit":  i64(1000),
		"key":    p(str(""), tString),
	}
}

func BenchmarkCompileWatcher(b *testing.B) {
	cat, err := schema.Build(testDDL)
	if err != nil {
		b.Fatal(err)
	}
	params := watcherParams(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(cat, watcherHinted, params, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompilePointLookup(b *testing.B) {
	cat, err := schema.Build(testDDL)
	if err != nil {
		b.Fatal(err)
	}
	params := Params{"id": i64(42)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(cat, pointLookup, params, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileUncached measures a cache miss (parse + compile).
func BenchmarkCompileUncached(b *testing.B) {
	cat, err := schema.Build(testDDL)
	if err != nil {
		b.Fatal(err)
	}
	params := watcherParams(time.Now())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildQueryTemplate(cat, watcherHinted, params, CurrentRows{}, false, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// loadChanges fills Changes with n old rows and fresh new ones, and returns the
// timestamp that separates them.
func loadChanges(b testing.TB, db *sql.DB, n, fresh int) time.Time {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO Changes (Id, LastUpdated, Payload) VALUES (?, ?, 'payload')`)
	if err != nil {
		b.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n+fresh; i++ {
		if _, err := st.Exec(fmt.Sprintf("row-%07d", i), value.FormatTimestamp(base.Add(time.Duration(i)*time.Millisecond))); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return base.Add(time.Duration(n)*time.Millisecond - time.Microsecond)
}

func benchWatcher(b *testing.B, q string) { benchWatcherWith(b, q, Compile) }

func benchWatcherWith(b *testing.B, q string, compile func(*schema.Catalog, string, Params, Source) (*Plan, error)) {
	cat, db := newTestDB(b)
	since := loadChanges(b, db, 100_000, 100)
	params := watcherParams(since)
	b.ResetTimer()
	for b.Loop() {
		plan, err := compile(cat, q, params, nil)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := rowsOf(db, plan.SQL, plan.Args, plan.Decode)
		plan.RowsScanned()
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) != 100 {
			b.Fatalf("got %d rows, want 100", len(rows))
		}
	}
}

// The watcher query at 100k rows with 100 new since the last poll, with and without
// the FORCE_INDEX hint (compile + run + decode).
func BenchmarkWatcherHinted(b *testing.B)   { benchWatcher(b, watcherHinted) }
func BenchmarkWatcherUnhinted(b *testing.B) { benchWatcher(b, watcherUnhinted) }
func BenchmarkWatcherResume(b *testing.B)   { benchWatcher(b, watcherResumeHinted) }

// The same with rows-scanned counting (PROFILE / WITH_STATS).
func BenchmarkWatcherHintedProfiled(b *testing.B) {
	benchWatcherWith(b, watcherHinted, CompileProfiled)
}

func BenchmarkWatcherUnhintedProfiled(b *testing.B) {
	benchWatcherWith(b, watcherUnhinted, CompileProfiled)
}
