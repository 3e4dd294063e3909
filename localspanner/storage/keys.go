package storage

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spanload/spanload/localspanner/schema"
)

// KeyRange is a range of keys (or key prefixes) in key order.
type KeyRange struct {
	Start, End             []any
	StartClosed, EndClosed bool
}

// KeySet selects rows by full keys and by ranges; All selects every row.
type KeySet struct {
	Keys   [][]any
	Ranges []KeyRange
	All    bool
}

// KeyString encodes a table name and key cells into a map key.
func KeyString(table string, key []any) string {
	var b strings.Builder
	b.WriteString(table)
	for _, k := range key {
		b.WriteByte(0)
		switch v := k.(type) {
		case nil:
			b.WriteByte('n')
		case int64:
			b.WriteByte('i')
			var buf [8]byte
			binary.BigEndian.PutUint64(buf[:], uint64(v))
			b.Write(buf[:])
		case float64:
			b.WriteByte('f')
			b.WriteString(strconv.FormatUint(math.Float64bits(v), 16))
		case string:
			b.WriteByte('s')
			b.WriteString(v)
		case []byte:
			b.WriteByte('b')
			b.Write(v)
		default:
			fmt.Fprintf(&b, "?%v", v)
		}
	}
	return b.String()
}

// FormatKey renders key cells as Spanner prints keys in messages: [1,"a"].
func FormatKey(key []any) string {
	parts := make([]string, len(key))
	for i, k := range key {
		switch v := k.(type) {
		case nil:
			parts[i] = "NULL"
		case string:
			parts[i] = v
		case []byte:
			parts[i] = string(v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// pointWhere is "k1 = ? AND k2 = ?" over the first n key parts, columns prefixed.
func pointWhere(parts []schema.KeyPart, n int, prefix string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(prefix + parts[i].Column.SQLName + " = ?")
	}
	return b.String()
}

// RangeWhere returns the SQL condition (and its arguments) selecting keys in r,
// comparing key prefixes in key order (DESC parts reversed).
func RangeWhere(parts []schema.KeyPart, r KeyRange, prefix string) (string, []any) {
	var conds []string
	var args []any
	if len(r.Start) > 0 {
		c, a := lexCompare(parts, r.Start, true, r.StartClosed, prefix)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(r.End) > 0 {
		c, a := lexCompare(parts, r.End, false, r.EndClosed, prefix)
		conds, args = append(conds, c), append(args, a...)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// lexCompare builds key[:len(vals)] >= vals (lower=true) or <= vals (lower=false),
// strict when !closed, in key order.
func lexCompare(parts []schema.KeyPart, vals []any, lower, closed bool, prefix string) (string, []any) {
	n := len(vals)
	if n > len(parts) {
		n = len(parts)
	}
	var build func(i int) (string, []any)
	build = func(i int) (string, []any) {
		col := prefix + parts[i].Column.SQLName
		gt := lower != parts[i].Desc // "greater in key order" maps to SQL >
		strict, incl := "<", "<="
		if gt {
			strict, incl = ">", ">="
		}
		if i == n-1 {
			op := strict
			if closed {
				op = incl
			}
			return col + " " + op + " ?", []any{vals[i]}
		}
		rest, ra := build(i + 1)
		return "(" + col + " " + strict + " ? OR (" + col + " = ? AND " + rest + "))", append([]any{vals[i], vals[i]}, ra...)
	}
	return build(0)
}
