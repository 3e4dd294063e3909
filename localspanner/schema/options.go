package schema

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// DatabaseOption is one option set by ALTER DATABASE ... SET OPTIONS.
type DatabaseOption struct {
	Name string // lower-cased
	Type string // STRING, INT64 or BOOL
	// Value is the option's value as INFORMATION_SCHEMA.DATABASE_OPTIONS shows it
	// (a STRING without quotes).
	Value string
	// SQL is the value as a DDL literal.
	SQL string
}

// databaseOptions are the options ALTER DATABASE accepts, with their types. Options
// named LocalOptionPrefix... are the local server's own (any type; storage applies a
// statement that sets only those, see DatabaseOptions).
var databaseOptions = map[string]string{
	"version_retention_period":     "STRING",
	"default_leader":               "STRING",
	"optimizer_version":            "INT64",
	"optimizer_statistics_package": "STRING",
	"enable_key_visualizer":        "BOOL",
	"default_sequence_kind":        "STRING",
	"default_time_zone":            "STRING",
	"witness_location":             "STRING",
}

// Option returns the database option name (case-insensitive), if it is set.
func (c *Catalog) Option(name string) (DatabaseOption, bool) {
	o, ok := c.options[strings.ToLower(name)]
	return o, ok
}

// Options returns the set database options, sorted by name.
func (c *Catalog) Options() []DatabaseOption {
	out := make([]DatabaseOption, 0, len(c.options))
	for _, o := range c.options {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *Catalog) alterDatabase(s *ast.AlterDatabase) error {
	if s.Options == nil || len(s.Options.Records) == 0 {
		return spanerr.InvalidArgument("ALTER DATABASE needs SET OPTIONS (...)")
	}
	next := map[string]DatabaseOption{}
	for k, v := range c.options {
		next[k] = v
	}
	for _, r := range s.Options.Records {
		name := strings.ToLower(r.Name.Name)
		want, known := databaseOptions[name]
		if !known && !strings.HasPrefix(name, LocalOptionPrefix) {
			return spanerr.InvalidArgument("Option: %s is unknown.", r.Name.Name)
		}
		o := DatabaseOption{Name: name, SQL: r.Value.SQL()}
		switch v := r.Value.(type) {
		case *ast.NullLiteral:
			delete(next, name) // NULL resets the option to its default
			continue
		case *ast.StringLiteral:
			o.Type, o.Value = "STRING", v.Value
			o.SQL = "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v.Value) + "'"
		case *ast.IntLiteral:
			n, err := strconv.ParseInt(v.Value, v.Base, 64)
			if err != nil {
				return spanerr.InvalidArgument("Invalid integer for option %s: %s", r.Name.Name, v.Value)
			}
			o.Type, o.Value = "INT64", strconv.FormatInt(n, 10)
		case *ast.BoolLiteral:
			o.Type, o.Value = "BOOL", strings.ToUpper(strconv.FormatBool(v.Value))
		default:
			return spanerr.InvalidArgument("Option %s needs a literal value, not %s", r.Name.Name, r.Value.SQL())
		}
		if known && o.Type != want {
			return spanerr.InvalidArgument("Option %s can only take a %s value, not %s", r.Name.Name, want, r.Value.SQL())
		}
		if name == "version_retention_period" {
			if _, err := ParseRetention(o.Value); err != nil {
				return err
			}
		}
		next[name] = o
	}
	c.options = next
	c.dbName = s.Name.Name
	return nil
}

// ParseRetention reads a version_retention_period ('1h', '90m', '3d', '1.5h'): a
// number and a unit (s, m, h, d) from 1 hour to 7 days.
func ParseRetention(v string) (time.Duration, error) {
	d, ok := parseSpan(v)
	if !ok || d < time.Hour || d > 7*24*time.Hour {
		return 0, spanerr.InvalidArgument("Invalid version_retention_period: %s. The retention period must be between 1 hour and 7 days, e.g. '1h', '3d'.", v)
	}
	return d, nil
}

// parseSpan reads a number and a unit (s, m, h, d): '36h', '1.5h', '7d'; false if it is not one.
// The retention options (the database's, a change stream's) are written this way.
func parseSpan(v string) (time.Duration, bool) {
	units := map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
	if len(v) < 2 {
		return 0, false
	}
	mult, ok := units[v[len(v)-1]]
	n, err := strconv.ParseFloat(v[:len(v)-1], 64)
	if !ok || err != nil {
		return 0, false
	}
	return time.Duration(n * mult * float64(time.Second)), true
}

// optionsDDL renders the set options as one ALTER DATABASE statement ("" when none).
func (c *Catalog) optionsDDL() string {
	opts := c.Options()
	if len(opts) == 0 {
		return ""
	}
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = o.Name + " = " + o.SQL
	}
	return "ALTER DATABASE " + c.dbName + " SET OPTIONS (\n  " + strings.Join(parts, ",\n  ") + "\n)"
}
