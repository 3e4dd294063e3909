package storage

import (
	"fmt"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// retyped reports whether ch changed a column between STRING and BYTES (or between
// ARRAY<STRING> and ARRAY<BYTES>).
func retyped(ch *schema.Change) bool {
	col, old := ch.AlteredColumn, ch.OldColumn
	return col != nil && old != nil && elemCode(col.Type) != elemCode(old.Type)
}

func elemCode(t *spannerpb.Type) spannerpb.TypeCode {
	if t.ArrayElementType != nil {
		return t.ArrayElementType.Code
	}
	return t.Code
}

// retypeDDL returns the checks of the existing values and the statements that convert
// them, current rows and history alike, for a STRING <-> BYTES change ("Make schema
// updates": BYTES values must be valid UTF-8 to become STRING, and each value must fit
// the new length). The history triggers are off while the values are rewritten: a
// conversion is not a new version of the row.
func retypeDDL(ch *schema.Change) ([]string, []dataCheck) {
	t, col := ch.AlteredTable, ch.AlteredColumn
	toString := elemCode(col.Type) == spannerpb.TypeCode_STRING
	array := col.Type.ArrayElementType != nil
	// conv converts one stored value x of the old type into the new type's storage;
	// measure is the length Spanner counts in the new type (characters of a STRING,
	// bytes of a BYTES).
	conv := func(x string) string { return "CAST(" + x + " AS BLOB)" }
	measure := func(x string) string { return "length(CAST(" + x + " AS BLOB))" }
	bad := ""
	if toString {
		conv = func(x string) string { return "CAST(" + x + " AS TEXT)" }
		measure = func(x string) string { return "length(CAST(" + x + " AS TEXT))" }
		bad = "sp_safe_cast(%s, 'BYTES', 'STRING') IS NULL"
	}
	c := col.SQLName
	var invalid, tooLong, set string
	if array {
		// Array cells are JSON; BYTES elements are base64 text.
		elem := "value"
		newElem := "sp_base64(value)"
		if toString {
			elem = "sp_unbase64(value)"
			newElem = conv(elem)
		}
		if bad != "" {
			invalid = "EXISTS (SELECT 1 FROM json_each(" + c + ") WHERE value IS NOT NULL AND " + fmt.Sprintf(bad, elem) + ")"
		}
		tooLong = "(SELECT max(" + measure(elem) + ") FROM json_each(" + c + "))"
		set = "(SELECT json_group_array(" + newElem + ") FROM json_each(" + c + "))"
	} else {
		if bad != "" {
			invalid = fmt.Sprintf(bad, c)
		}
		tooLong = measure(c)
		set = conv(c)
	}
	var checks []dataCheck
	if invalid != "" {
		checks = append(checks, dataCheck{keySelect(t) + " WHERE " + c + " IS NOT NULL AND " + invalid + " LIMIT 1", func(key string) error {
			return spanerr.FailedPrecondition("Alteration of column %s is not allowed because it has an invalid UTF-8 character at key: %s", col.Name, key)
		}})
	}
	if col.Length > 0 {
		checks = append(checks, dataCheck{keySelect(t) + " WHERE " + tooLong + " > " + fmt.Sprint(col.Length) + " LIMIT 1", func(key string) error {
			return spanerr.FailedPrecondition("Reducing the length of column %s to %d is not allowed because it has a longer value at key: %s", col.Name, col.Length, key)
		}})
	}
	update := func(table string) string {
		return "UPDATE " + table + " SET " + c + " = " + set + " WHERE " + c + " IS NOT NULL"
	}
	sqls := append(t.SQLiteDropHistoryTriggers(), update(t.SQLName), update(t.HistoryName()))
	return append(sqls, t.SQLiteRecreateHistoryTriggers(commitTSFunc)...), checks
}

// retypedSplits are the split objects whose bounds hold values of the column ch
// retyped (of the old type): they start again as one split. A key column is in the
// bounds of its table hierarchy and of every index of the table.
func retypedSplits(ch *schema.Change) []string {
	if !retyped(ch) {
		return nil
	}
	t, col := ch.AlteredTable, ch.AlteredColumn
	var objs []string
	if t.IsKey(col) {
		o, _ := tableObject(t)
		objs = append(objs, o)
	}
	for _, ix := range t.Indexes {
		for _, k := range indexParts(ix) {
			if k.Column == col {
				objs = append(objs, "i:"+strings.ToLower(ix.Name))
				break
			}
		}
	}
	return objs
}
