package schema

import (
	"strconv"
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// LocalOptionPrefix starts the names of the database options that only the local
// server knows (splits, latency model). They are set like Spanner's own options,
//
//	ALTER DATABASE db SET OPTIONS (spanload_split_rows = 100, spanload_latency_model = 'production_like')
//
// and a NULL value resets one to the server's default.
const LocalOptionPrefix = "spanload_"

// DatabaseOptions parses stmt as an ALTER DATABASE ... SET OPTIONS statement
// whose options are all local-server options. ok is false for any other
// statement (including one that mixes in Spanner's own options), which the
// catalog then handles. Values are int64, string or nil (NULL).
func DatabaseOptions(stmt string) (db string, opts map[string]any, ok bool, err error) {
	if !strings.Contains(strings.ToLower(stmt), LocalOptionPrefix) {
		return "", nil, false, nil
	}
	d, err := ParseDDL(stmt)
	if err != nil {
		return "", nil, false, nil // not ours: the catalog reports the syntax error
	}
	alt, isAlter := d.(*ast.AlterDatabase)
	if !isAlter || alt.Options == nil {
		return "", nil, false, nil
	}
	opts = map[string]any{}
	for _, rec := range alt.Options.Records {
		name := strings.ToLower(rec.Name.Name)
		if !strings.HasPrefix(name, LocalOptionPrefix) {
			return "", nil, false, nil
		}
		switch v := rec.Value.(type) {
		case *ast.IntLiteral:
			n, perr := strconv.ParseInt(v.Value, v.Base, 64)
			if perr != nil {
				return "", nil, true, spanerr.InvalidArgument("Invalid value for database option %s: %s", name, v.Value)
			}
			opts[name] = n
		case *ast.StringLiteral:
			opts[name] = v.Value
		case *ast.NullLiteral:
			opts[name] = nil
		default:
			return "", nil, true, spanerr.InvalidArgument("Invalid value for database option %s: %s", name, rec.Value.SQL())
		}
	}
	return alt.Name.Name, opts, true, nil
}
