package frontend

import (
	"strings"
	"testing"
	"unicode/utf8"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestResultWriterChunksLargeResults(t *testing.T) {
	tests := []struct {
		name      string
		rows      int
		valueLen  int // in runes of "é" (2 bytes each)
		wantParts int // at least this many PartialResultSets
	}{
		{"small result in one part", 3, 10, 1},
		{"many rows split by size", 2000, 200, 2},
		{"one huge value split across parts", 1, 3 << 20 / 2, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var parts []*spannerpb.PartialResultSet
			w := newResultWriter(func(p *spannerpb.PartialResultSet) error { parts = append(parts, p); return nil }, nil)
			w.setMeta(&spannerpb.ResultSetMetadata{})
			want := strings.Repeat("é", tc.valueLen)
			for i := 0; i < tc.rows; i++ {
				if err := w.row([]*structpb.Value{structpb.NewStringValue(want)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.finish(nil); err != nil {
				t.Fatal(err)
			}
			if len(parts) < tc.wantParts {
				t.Fatalf("%d parts, want at least %d", len(parts), tc.wantParts)
			}
			// Reassemble as a client does: a chunked last value merges with the next part's first.
			var values []string
			merge := false
			for i, p := range parts {
				if (i == 0) != (p.Metadata != nil) {
					t.Errorf("part %d: metadata must come with the first part only", i)
				}
				for j, v := range p.Values {
					s := v.GetStringValue()
					if !utf8.ValidString(s) {
						t.Fatalf("part %d value %d is not valid UTF-8", i, j)
					}
					if merge && j == 0 {
						values[len(values)-1] += s
					} else {
						values = append(values, s)
					}
				}
				merge = p.ChunkedValue
				if !p.ChunkedValue && !p.Last && len(p.ResumeToken) == 0 {
					t.Errorf("part %d ends on a row boundary without a resume token", i)
				}
			}
			if len(values) != tc.rows {
				t.Fatalf("%d values after reassembly, want %d", len(values), tc.rows)
			}
			for _, v := range values {
				if v != want {
					t.Fatalf("a value of %d bytes came back as %d bytes", len(want), len(v))
				}
			}
		})
	}
}
