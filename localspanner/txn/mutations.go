package txn

import (
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/value"
)

// ConvertMutations turns wire mutations into storage mutations, checking tables,
// columns and value types against the catalog.
func ConvertMutations(cat *schema.Catalog, in []*spannerpb.Mutation) ([]*storage.Mutation, error) {
	out := make([]*storage.Mutation, 0, len(in))
	for _, m := range in {
		var w *spannerpb.Mutation_Write
		var op storage.Op
		switch o := m.Operation.(type) {
		case *spannerpb.Mutation_Insert:
			w, op = o.Insert, storage.OpInsert
		case *spannerpb.Mutation_Update:
			w, op = o.Update, storage.OpUpdate
		case *spannerpb.Mutation_InsertOrUpdate:
			w, op = o.InsertOrUpdate, storage.OpInsertOrUpdate
		case *spannerpb.Mutation_Replace:
			w, op = o.Replace, storage.OpReplace
		case *spannerpb.Mutation_Delete_:
			t, ok := cat.Table(o.Delete.Table)
			if !ok {
				return nil, spanerr.NotFound("Table not found: %s", o.Delete.Table)
			}
			ks, err := ConvertKeySet(t.PrimaryKey, o.Delete.KeySet)
			if err != nil {
				return nil, err
			}
			out = append(out, &storage.Mutation{Op: storage.OpDelete, Table: t, KeySet: ks})
			continue
		default:
			return nil, spanerr.Unimplemented("mutation %T is not supported", o)
		}
		sm, err := convertWrite(cat, op, w)
		if err != nil {
			return nil, err
		}
		out = append(out, sm)
	}
	return out, nil
}

func convertWrite(cat *schema.Catalog, op storage.Op, w *spannerpb.Mutation_Write) (*storage.Mutation, error) {
	t, ok := cat.Table(w.Table)
	if !ok {
		return nil, spanerr.NotFound("Table not found: %s", w.Table)
	}
	cols := make([]*schema.Column, len(w.Columns))
	for i, name := range w.Columns {
		c, ok := t.Column(name)
		if !ok {
			return nil, spanerr.NotFound("Column not found in table %s: %s", t.Name, name)
		}
		if c.Generated != "" {
			return nil, spanerr.FailedPrecondition("Cannot write into generated column %s.%s.", t.Name, c.Name)
		}
		for j := 0; j < i; j++ {
			if cols[j] == c {
				return nil, spanerr.InvalidArgument("Multiple values for column %s.", c.Name)
			}
		}
		cols[i] = c
	}
	rows := make([][]any, len(w.Values))
	for r, lv := range w.Values {
		vals := lv.GetValues()
		if len(vals) != len(cols) {
			return nil, spanerr.InvalidArgument("Mutation for table %s has %d columns but %d values.", t.Name, len(cols), len(vals))
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			x, err := value.ToSQLite(v, cols[i].Type)
			if err != nil {
				return nil, spanerr.FailedPrecondition("Invalid value for column %s in table %s: Expected %s.", cols[i].Name, t.Name, value.TypeString(cols[i].Type))
			}
			if err := checkLength(cols[i], x); err != nil {
				return nil, err
			}
			row[i] = x
		}
		rows[r] = row
	}
	if op != storage.OpUpdate {
		cols, rows = addKeyDefaults(t, cols, rows)
	}
	return &storage.Mutation{Op: op, Table: t, Columns: cols, Rows: rows}, nil
}

func checkLength(c *schema.Column, x any) error {
	if c.Length <= 0 || c.Type.Code == spannerpb.TypeCode_ARRAY {
		return nil
	}
	switch v := x.(type) {
	case string:
		if int64(len([]rune(v))) > c.Length {
			return spanerr.FailedPrecondition("New value exceeds the maximum size limit for this column: %s, size: %d, limit: %d.", c.Name, len([]rune(v)), c.Length)
		}
	case []byte:
		if int64(len(v)) > c.Length {
			return spanerr.FailedPrecondition("New value exceeds the maximum size limit for this column: %s, size: %d, limit: %d.", c.Name, len(v), c.Length)
		}
	}
	return nil
}

// ConvertKeySet turns a wire key set into storage keys for the given key parts.
func ConvertKeySet(parts []schema.KeyPart, ks *spannerpb.KeySet) (storage.KeySet, error) {
	var out storage.KeySet
	if ks == nil {
		return out, spanerr.InvalidArgument("key_set is required")
	}
	out.All = ks.All
	for _, k := range ks.Keys {
		key, err := convertKey(parts, k)
		if err != nil {
			return out, err
		}
		out.Keys = append(out.Keys, key)
	}
	for _, r := range ks.Ranges {
		var kr storage.KeyRange
		var err error
		switch s := r.StartKeyType.(type) {
		case *spannerpb.KeyRange_StartClosed:
			kr.StartClosed = true
			kr.Start, err = convertKey(parts, s.StartClosed)
		case *spannerpb.KeyRange_StartOpen:
			kr.Start, err = convertKey(parts, s.StartOpen)
		default: // no start key: the range is unbounded below
			kr.StartClosed = true
		}
		if err != nil {
			return out, err
		}
		switch e := r.EndKeyType.(type) {
		case *spannerpb.KeyRange_EndClosed:
			kr.EndClosed = true
			kr.End, err = convertKey(parts, e.EndClosed)
		case *spannerpb.KeyRange_EndOpen:
			kr.End, err = convertKey(parts, e.EndOpen)
		default: // no end key: the range is unbounded above
			kr.EndClosed = true
		}
		if err != nil {
			return out, err
		}
		out.Ranges = append(out.Ranges, kr)
	}
	return out, nil
}

func convertKey(parts []schema.KeyPart, lv *structpb.ListValue) ([]any, error) {
	vals := lv.GetValues()
	if len(vals) > len(parts) {
		names := make([]string, len(parts))
		for i, p := range parts {
			names[i] = p.Column.Name
		}
		return nil, spanerr.InvalidArgument("Key has %d parts but the key is (%s).", len(vals), strings.Join(names, ", "))
	}
	key := make([]any, len(vals))
	for i, v := range vals {
		x, err := value.ToSQLite(v, parts[i].Column.Type)
		if err != nil {
			return nil, spanerr.FailedPrecondition("Could not parse %s as %s", prototext.Format(v), value.TypeString(parts[i].Column.Type))
		}
		key[i] = x
	}
	return key, nil
}
