package schema

// The local server's own database options (dboptions.go) in a PostgreSQL-dialect
// database, set the way PostgreSQL (and Spanner's PostgreSQL dialect, for its spanner.*
// options) sets a database's parameters:
//
//	ALTER DATABASE db SET spanload_split_rows = 100
//	ALTER DATABASE db SET spanload_latency_model TO 'production_like'
//	ALTER DATABASE db SET spanload_split_rows TO DEFAULT    (or RESET spanload_split_rows)
//
// lowered to the GoogleSQL ALTER DATABASE ... SET OPTIONS statement that DatabaseOptions
// reads, a DEFAULT or RESET to NULL (the server's default).

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// lowerPGDatabaseOption lowers an ALTER DATABASE ... SET / RESET of one local option.
func lowerPGDatabaseOption(s *pg.AlterDatabaseSetStmt) (string, error) {
	set := s.GetSetstmt()
	name := strings.ToLower(set.GetName())
	if !strings.HasPrefix(name, LocalOptionPrefix) {
		return "", spanerr.Unimplemented("This DDL statement is not supported by the local Spanner server for PostgreSQL databases: ALTER DATABASE ... SET %s", set.GetName())
	}
	db, err := gq(s.GetDbname())
	if err != nil {
		return "", err
	}
	value := "NULL"
	switch set.GetKind() {
	case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET:
	case pg.VariableSetKind_VAR_SET_VALUE:
		if len(set.GetArgs()) != 1 {
			return "", spanerr.InvalidArgument("[ERROR] database option %s takes one value", name)
		}
		c := set.GetArgs()[0].GetAConst()
		switch {
		case c == nil:
			return "", spanerr.InvalidArgument("[ERROR] database option %s takes a constant", name)
		case c.GetIval() != nil:
			value = fmt.Sprint(c.GetIval().GetIval())
		case c.GetSval() != nil:
			value = "'" + strings.ReplaceAll(c.GetSval().GetSval(), "'", `\'`) + "'"
		default:
			return "", spanerr.InvalidArgument("[ERROR] database option %s takes an integer or a string", name)
		}
	default:
		return "", spanerr.Unimplemented("This DDL statement is not supported by the local Spanner server for PostgreSQL databases: ALTER DATABASE ... %s", set.GetKind())
	}
	return fmt.Sprintf("ALTER DATABASE %s SET OPTIONS (%s = %s)", db, name, value), nil
}
