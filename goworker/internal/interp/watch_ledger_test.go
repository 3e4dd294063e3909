package interp

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/goworker/internal/ledger"
)

// A change stream mod's INT64 values are JSON strings (Spanner's change record format); a delete
// carries no new values and counts as foreign, as SeenLedger counts a change without a version.
func TestAModGivesTheLedgerItsKeyVersionAndWriter(t *testing.T) {
	w := &StreamWatcher{def: &Watch{Table: "Items", Versions: &WatchVersions{Version: "Version", Writer: "WriterId"}}}
	seen := ledger.NewSeenLedger([]string{"run/0"})
	mod := func(keys, values string) []*structpb.Value {
		return []*structpb.Value{structpb.NewStringValue(keys), structpb.NewStringValue(values), structpb.NewStringValue("{}")}
	}
	for _, m := range [][]*structpb.Value{
		mod(`{"Id":"4611686018427387905"}`, `{"Version":"1","WriterId":"run/0","Payload":"x"}`),
		mod(`{"Id":"7"}`, `{"Version":"2","WriterId":"run/0"}`),
		mod(`{"Id":"7"}`, `{"Version":"2","WriterId":"run/0"}`), // twice: a duplicate
		mod(`{"Id":"8"}`, `{}`), // a delete
		mod(`{"Id":"9"}`, `{"Version":"1","WriterId":"other/0"}`),
	} {
		if err := w.sawMod(seen, m); err != nil {
			t.Fatal(err)
		}
	}
	got := seen.Message(0)
	if want := [][3]int64{{7, 2, 1}, {4611686018427387905, 1, 1}}; !reflect.DeepEqual(got.Received, want) ||
		got.Duplicates != 1 || got.Foreign != 2 {
		t.Errorf("received %v, %d duplicates, %d foreign; want %v, 1, 2", got.Received, got.Duplicates, got.Foreign, want)
	}
	err := w.sawMod(seen, mod(`{"A":"1","B":"2"}`, `{}`))
	if err == nil || !strings.Contains(err.Error(), "watch.versions") {
		t.Errorf("a key of two columns gave %v", err)
	}
}
