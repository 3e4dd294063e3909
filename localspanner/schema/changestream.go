package schema

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// ChangeStream is a CREATE CHANGE STREAM: what it watches and its options. Tables are
// named, not pointed to (a catalog is rebuilt from the DDL on every change).
type ChangeStream struct {
	Name   string
	All    bool                 // FOR ALL
	Tables []*ChangeStreamTable // FOR t, t(c, ...), ...
	// Options are the set options (lower-cased name -> value as INFORMATION_SCHEMA
	// shows it); OptionSQL keeps each one's DDL literal.
	Options   map[string]string
	OptionSQL map[string]string
}

// ChangeStreamTable is one table of a FOR clause. AllColumns is FOR t (every column,
// also later ones); otherwise Columns lists the non-key columns tracked (FOR t() tracks
// the key only).
type ChangeStreamTable struct {
	Table      string
	AllColumns bool
	Columns    []string
}

// Value capture types (the value_capture_type option).
const (
	CaptureOldAndNew        = "OLD_AND_NEW_VALUES"
	CaptureNewRow           = "NEW_ROW"
	CaptureNewValues        = "NEW_VALUES"
	CaptureNewRowAndOldVals = "NEW_ROW_AND_OLD_VALUES"
)

// Change stream limits, as Spanner documents them.
const (
	ChangeStreamDefaultRetention = 24 * time.Hour
	ChangeStreamMinRetention     = 24 * time.Hour
	ChangeStreamMaxRetention     = 7 * 24 * time.Hour
	// Spanner's quotas page, "Change stream limits": "Change streams per database: 10" and
	// "Change streams watching any given non-key column: 3", where "A change stream that
	// watches an entire table or database implicitly watches every column in that table or
	// database, and therefore counts towards this limit."
	MaxChangeStreamsPerDatabase = 10
	MaxChangeStreamsPerColumn   = 3
)

// changeStreamOptions are the options CREATE / ALTER CHANGE STREAM accept, with their types.
var changeStreamOptions = map[string]string{
	"retention_period":    "STRING",
	"value_capture_type":  "STRING",
	"exclude_ttl_deletes": "BOOL",
	"exclude_insert":      "BOOL",
	"exclude_update":      "BOOL",
	"exclude_delete":      "BOOL",
}

// ChangeStream returns the change stream with the given name (case-insensitive).
func (c *Catalog) ChangeStream(name string) (*ChangeStream, bool) {
	for _, s := range c.ChangeStreams {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return nil, false
}

// Retention is the stream's retention_period.
func (s *ChangeStream) Retention() time.Duration {
	if v, ok := s.Options["retention_period"]; ok {
		if d, err := parseStreamRetention(v); err == nil {
			return d
		}
	}
	return ChangeStreamDefaultRetention
}

// CaptureType is the stream's value_capture_type.
func (s *ChangeStream) CaptureType() string {
	if v, ok := s.Options["value_capture_type"]; ok {
		return v
	}
	return CaptureOldAndNew
}

// Excludes reports whether the stream leaves out mods of type modType
// (INSERT, UPDATE or DELETE) by its exclude_* options.
func (s *ChangeStream) Excludes(modType string) bool {
	return s.Options["exclude_"+strings.ToLower(modType)] == "TRUE"
}

// Tracks returns whether the stream watches table t and, if so, whether it watches
// column col (a key column is watched whenever its table is).
func (s *ChangeStream) Tracks(t *Table) (*ChangeStreamTable, bool) {
	if s.All {
		return &ChangeStreamTable{Table: t.Name, AllColumns: true}, true
	}
	for _, ct := range s.Tables {
		if strings.EqualFold(ct.Table, t.Name) {
			return ct, true
		}
	}
	return nil, false
}

// TracksColumn reports whether ct watches col of t.
func (ct *ChangeStreamTable) TracksColumn(t *Table, col *Column) bool {
	if t.IsKey(col) || ct.AllColumns {
		return true
	}
	for _, n := range ct.Columns {
		if strings.EqualFold(n, col.Name) {
			return true
		}
	}
	return false
}

// Tracked reports whether any change stream watches t.
func (c *Catalog) Tracked(t *Table) bool {
	for _, s := range c.ChangeStreams {
		if _, ok := s.Tracks(t); ok {
			return true
		}
	}
	return false
}

// DDL is the canonical CREATE CHANGE STREAM statement of s.
func (s *ChangeStream) DDL() string {
	var b strings.Builder
	b.WriteString("CREATE CHANGE STREAM " + s.Name)
	if f := s.forClause(); f != "" {
		b.WriteString(" " + f)
	}
	if len(s.OptionSQL) > 0 {
		names := make([]string, 0, len(s.OptionSQL))
		for n := range s.OptionSQL {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = n + " = " + s.OptionSQL[n]
		}
		b.WriteString(" OPTIONS (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}

func (s *ChangeStream) forClause() string {
	if s.All {
		return "FOR ALL"
	}
	if len(s.Tables) == 0 {
		return ""
	}
	parts := make([]string, len(s.Tables))
	for i, t := range s.Tables {
		parts[i] = t.Table
		if !t.AllColumns {
			parts[i] += "(" + strings.Join(t.Columns, ", ") + ")"
		}
	}
	return "FOR " + strings.Join(parts, ", ")
}

func (c *Catalog) createChangeStream(s *ast.CreateChangeStream) error {
	name := s.Name.Name
	if _, ok := c.ChangeStream(name); ok || c.nameTaken(name) {
		return spanerr.FailedPrecondition("Duplicate name in schema: %s.", name)
	}
	cs := &ChangeStream{Name: name, Options: map[string]string{}, OptionSQL: map[string]string{}}
	if err := c.setStreamFor(cs, s.For); err != nil {
		return err
	}
	if err := cs.setOptions(s.Options); err != nil {
		return err
	}
	if len(c.ChangeStreams) >= MaxChangeStreamsPerDatabase {
		return spanerr.FailedPrecondition("Cannot add Change Stream %s : because the maximum number of Change Streams per Database (limit %d) has been reached.", name, MaxChangeStreamsPerDatabase)
	}
	if err := c.checkWatchLimit(cs); err != nil {
		return err
	}
	c.ChangeStreams = append(c.ChangeStreams, cs)
	return nil
}

// checkWatchLimit refuses cs when it would make a non-key column watched by more than
// MaxChangeStreamsPerColumn change streams (cs replaces the stream of its name).
func (c *Catalog) checkWatchLimit(cs *ChangeStream) error {
	for _, t := range c.Tables {
		ct, ok := cs.Tracks(t)
		if !ok {
			continue
		}
		for _, col := range t.Columns {
			if t.IsKey(col) || !ct.TracksColumn(t, col) {
				continue
			}
			n := 1
			for _, other := range c.ChangeStreams {
				if strings.EqualFold(other.Name, cs.Name) {
					continue
				}
				if oct, ok := other.Tracks(t); ok && oct.TracksColumn(t, col) {
					n++
				}
			}
			if n > MaxChangeStreamsPerColumn {
				return spanerr.FailedPrecondition("Failed to create or alter Change Stream %s : because it is not allowed to have more than %d Change Streams tracking the same table or non-key column or ALL: %s.", cs.Name, MaxChangeStreamsPerColumn, col.Name)
			}
		}
	}
	return nil
}

func (c *Catalog) alterChangeStream(s *ast.AlterChangeStream) error {
	old, ok := c.ChangeStream(s.Name.Name)
	if !ok {
		return spanerr.NotFound("Change Stream not found: %s", s.Name.Name)
	}
	cs := &ChangeStream{Name: old.Name, All: old.All, Tables: old.Tables, Options: map[string]string{}, OptionSQL: map[string]string{}}
	for k, v := range old.Options {
		cs.Options[k], cs.OptionSQL[k] = v, old.OptionSQL[k]
	}
	switch a := s.ChangeStreamAlteration.(type) {
	case *ast.ChangeStreamSetFor:
		cs.All, cs.Tables = false, nil
		if err := c.setStreamFor(cs, a.For); err != nil {
			return err
		}
	case *ast.ChangeStreamDropForAll:
		cs.All, cs.Tables = false, nil
	case *ast.ChangeStreamSetOptions:
		if err := cs.setOptions(a.Options); err != nil {
			return err
		}
	}
	if err := c.checkWatchLimit(cs); err != nil {
		return err
	}
	for i, x := range c.ChangeStreams {
		if x == old {
			c.ChangeStreams[i] = cs
		}
	}
	return nil
}

func (c *Catalog) dropChangeStream(s *ast.DropChangeStream) error {
	cs, ok := c.ChangeStream(s.Name.Name)
	if !ok {
		return spanerr.NotFound("Change Stream not found: %s", s.Name.Name)
	}
	c.ChangeStreams = without(c.ChangeStreams, cs)
	return nil
}

func (c *Catalog) setStreamFor(cs *ChangeStream, f ast.ChangeStreamFor) error {
	switch f := f.(type) {
	case nil:
	case *ast.ChangeStreamForAll:
		cs.All = true
	case *ast.ChangeStreamForTables:
		for _, ft := range f.Tables {
			t, ok := c.Table(ft.TableName.Name)
			if !ok {
				return spanerr.NotFound("Table not found: %s", ft.TableName.Name)
			}
			ct := &ChangeStreamTable{Table: t.Name, AllColumns: ft.Rparen.Invalid()}
			for _, id := range ft.Columns {
				col, ok := t.Column(id.Name)
				if !ok {
					return spanerr.NotFound("Column not found in table %s: %s", t.Name, id.Name)
				}
				if t.IsKey(col) {
					return spanerr.FailedPrecondition("Change Stream %s cannot track key column %s of table %s explicitly: key columns are tracked with their table.", cs.Name, col.Name, t.Name)
				}
				ct.Columns = append(ct.Columns, col.Name)
			}
			cs.Tables = append(cs.Tables, ct)
		}
	}
	return nil
}

func (cs *ChangeStream) setOptions(opts *ast.Options) error {
	if opts == nil {
		return nil
	}
	for _, r := range opts.Records {
		name := strings.ToLower(r.Name.Name)
		want, known := changeStreamOptions[name]
		if !known {
			return spanerr.InvalidArgument("Option: %s is unknown.", r.Name.Name)
		}
		var val, sqlText, typ string
		switch v := r.Value.(type) {
		case *ast.NullLiteral:
			delete(cs.Options, name)
			delete(cs.OptionSQL, name)
			continue
		case *ast.StringLiteral:
			typ, val = "STRING", v.Value
			sqlText = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v.Value) + "'"
		case *ast.BoolLiteral:
			typ, val = "BOOL", strings.ToUpper(strconv.FormatBool(v.Value))
			sqlText = strings.ToLower(val)
		default:
			return spanerr.InvalidArgument("Option %s needs a literal value, not %s", r.Name.Name, r.Value.SQL())
		}
		if typ != want {
			return spanerr.InvalidArgument("Option %s can only take a %s value, not %s", r.Name.Name, want, r.Value.SQL())
		}
		switch name {
		case "retention_period":
			if _, err := parseStreamRetention(val); err != nil {
				return err
			}
		case "value_capture_type":
			switch val {
			case CaptureOldAndNew, CaptureNewRow, CaptureNewValues, CaptureNewRowAndOldVals:
			default:
				return spanerr.InvalidArgument("Invalid value_capture_type: %s. Supported types are OLD_AND_NEW_VALUES, NEW_ROW, NEW_VALUES and NEW_ROW_AND_OLD_VALUES.", val)
			}
		}
		cs.Options[name], cs.OptionSQL[name] = val, sqlText
	}
	return nil
}

// parseStreamRetention reads a retention_period ('36h', '7d'): from 1 to 7 days.
func parseStreamRetention(v string) (time.Duration, error) {
	d, ok := parseSpan(v)
	if !ok || d < ChangeStreamMinRetention || d > ChangeStreamMaxRetention {
		return 0, spanerr.InvalidArgument("Invalid retention_period: %s. The retention period must be between 1 day and 7 days, e.g. '36h', '7d'.", v)
	}
	return d, nil
}

// streamsOn names the change streams that watch table t explicitly (FOR t).
func (c *Catalog) streamsOn(t *Table) []string {
	var out []string
	for _, s := range c.ChangeStreams {
		for _, ct := range s.Tables {
			if strings.EqualFold(ct.Table, t.Name) {
				out = append(out, s.Name)
			}
		}
	}
	return out
}
