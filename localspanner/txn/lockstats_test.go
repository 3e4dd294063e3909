package txn

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/spanload/spanload/localspanner/storage"
)

// A read-write transaction that read a row another one then wrote loses at its commit; the
// conflict names the row, the column on both sides with its lock mode and each side's tag.
func TestLockConflictNamesTheRowColumnsModesAndTags(t *testing.T) {
	for _, tc := range []struct {
		name       string
		winnerRead bool
		mode       string
	}{
		{"blind write", false, WriterShared},
		// "An exclusive lock is acquired when a read-write transaction, which has already acquired a
		// ReaderShared lock, tries to write data after the completion of read." (lock statistics docs)
		{"read then write", true, Exclusive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s, db := setup(t)
			var got []LockConflict
			m.OnLockConflict = func(_ *storage.DB, c LockConflict) { got = append(got, c) }
			tb, _ := db.Catalog().Table("T")
			ctx := context.Background()
			loser, _ := m.Begin(s, rw, false)
			loser.Tag = "reader"
			loser.RecordKeyRead(loser.ReadSeq(), tb, [][]any{{int64(7)}}, []string{"Id", "V"})
			winner, _ := m.Begin(s, rw, false)
			winner.Tag = "writer"
			if tc.winnerRead {
				winner.RecordKeyRead(winner.ReadSeq(), tb, [][]any{{int64(7)}}, []string{"V"})
			}
			if err := winner.Buffer(write(db, 7, 1)); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Commit(ctx, winner, nil); err != nil {
				t.Fatal(err)
			}
			if err := loser.Buffer(write(db, 7, 2)); err != nil {
				t.Fatal(err)
			}
			_, err := m.Commit(ctx, loser, nil)
			var aborted *AbortedError
			if !errors.As(err, &aborted) {
				t.Fatalf("the loser's commit: %v, want ABORTED", err)
			}
			if len(got) != 1 {
				t.Fatalf("%d conflicts reported, want 1: %+v", len(got), got)
			}
			c := got[0]
			if c.RowRange != "T(7)" {
				t.Errorf("RowRange %q, want T(7)", c.RowRange)
			}
			// Both read and wrote Id and V: the conflict is on those cells.
			want := []LockRequest{
				{"T.Id", ReaderShared, "reader"}, {"T.V", ReaderShared, "reader"},
				{"T.Id", tc.mode, "writer"}, {"T.V", tc.mode, "writer"},
			}
			if !reflect.DeepEqual(c.Requests, want) {
				t.Errorf("requests %+v, want %+v", c.Requests, want)
			}
			if c.Wait <= 0 {
				t.Errorf("wait %v: the loser read before it was aborted", c.Wait)
			}
		})
	}
}
