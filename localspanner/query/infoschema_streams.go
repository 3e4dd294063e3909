package query

import (
	"sort"

	"github.com/spanload/spanload/localspanner/schema"
)

// changeStreamTables builds INFORMATION_SCHEMA.CHANGE_STREAMS, CHANGE_STREAM_TABLES,
// CHANGE_STREAM_COLUMNS (the columns of tables a stream watches by a column list)
// and CHANGE_STREAM_OPTIONS.
func changeStreamTables(cat *schema.Catalog, name string) *infoTable {
	head := []any{"CHANGE_STREAM_CATALOG", tString, "CHANGE_STREAM_SCHEMA", tString, "CHANGE_STREAM_NAME", tString}
	switch name {
	case "CHANGE_STREAMS":
		it := newInfoTable(append(head, "ALL", tBool)...)
		for _, s := range cat.ChangeStreams {
			it.add(lit(""), lit(""), lit(s.Name), litBool(s.All))
		}
		return it
	case "CHANGE_STREAM_TABLES":
		it := newInfoTable(append(head, "TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "ALL_COLUMNS", tBool)...)
		for _, s := range cat.ChangeStreams {
			for _, t := range cat.Tables {
				if ct, ok := s.Tracks(t); ok {
					it.add(lit(""), lit(""), lit(s.Name), lit(""), lit(""), lit(t.Name), litBool(ct.AllColumns))
				}
			}
		}
		return it
	case "CHANGE_STREAM_COLUMNS":
		it := newInfoTable(append(head, "TABLE_CATALOG", tString, "TABLE_SCHEMA", tString, "TABLE_NAME", tString, "COLUMN_NAME", tString)...)
		for _, s := range cat.ChangeStreams {
			for _, ct := range s.Tables {
				if ct.AllColumns {
					continue
				}
				for _, c := range ct.Columns {
					it.add(lit(""), lit(""), lit(s.Name), lit(""), lit(""), lit(ct.Table), lit(c))
				}
			}
		}
		return it
	}
	it := newInfoTable(append(head, "OPTION_NAME", tString, "OPTION_TYPE", tString, "OPTION_VALUE", tString)...)
	for _, s := range cat.ChangeStreams {
		names := make([]string, 0, len(s.Options))
		for n := range s.Options {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			typ := "STRING"
			if n != "retention_period" && n != "value_capture_type" {
				typ = "BOOL"
			}
			it.add(lit(""), lit(""), lit(s.Name), lit(n), lit(typ), lit(s.Options[n]))
		}
	}
	return it
}
