package query

import (
	"strconv"
	"strings"

	"cloud.google.com/go/spanner/apiv1/spannerpb"

	"github.com/spanload/spanload/localspanner/schema"
)

// pgSchemaName is the schema a PostgreSQL database's tables are in (Spanner's
// PostgreSQL information schema: table_schema 'public'; GoogleSQL's is ”).
const pgSchemaName = "public"

// pgInfoSchema turns an INFORMATION_SCHEMA table built for GoogleSQL into the one a
// PostgreSQL database shows: the user objects' schema columns (TABLE_SCHEMA,
// CONSTRAINT_SCHEMA, ...) say 'public' instead of the empty string, and the column names are lower
// case, as PostgreSQL's information_schema spells them. This is what the clients'
// Database.list_tables() and Table.exists() filter on (WHERE TABLE_SCHEMA = $1, 'public').
// Types are named in PostgreSQL: SPANNER_TYPE 'character varying(10)', 'bigint[]', and
// COLUMNS gains data_type ('character varying', 'ARRAY', ...), as PostgreSQL has it.
func pgInfoSchema(it *infoTable) {
	for i, name := range it.cols {
		if name == "SPANNER_TYPE" {
			it.cols = append(it.cols, "DATA_TYPE")
			it.types = append(it.types, tString)
			for r, row := range it.rows {
				pgType, dataType := pgTypeNames(strings.Trim(row[i], "'"))
				row[i] = lit(pgType)
				it.rows[r] = append(row, lit(dataType))
			}
		}
		if strings.HasSuffix(name, "_SCHEMA") || name == "SCHEMA_NAME" {
			for _, row := range it.rows {
				if row[i] == lit("") {
					row[i] = lit(pgSchemaName)
				}
			}
		}
	}
	for i, name := range it.cols {
		it.cols[i] = strings.ToLower(name)
	}
}

// pgTypeNames turns a GoogleSQL column type (STRING(10), ARRAY<INT64>) into its PostgreSQL
// name and PostgreSQL's information_schema data_type (no length; ARRAY for arrays).
func pgTypeNames(gsql string) (pgType, dataType string) {
	if inner, ok := strings.CutPrefix(gsql, "ARRAY<"); ok {
		elem, _ := pgTypeNames(strings.TrimSuffix(inner, ">"))
		return elem + "[]", "ARRAY"
	}
	base, arg, _ := strings.Cut(strings.TrimSuffix(gsql, ")"), "(")
	code, ok := spannerpb.TypeCode_value[base]
	if !ok {
		return strings.ToLower(gsql), strings.ToLower(gsql)
	}
	var length int64
	if n, err := strconv.ParseInt(arg, 10, 64); err == nil {
		length = n
	}
	dataType = schema.PGTypeName(&spannerpb.Type{Code: spannerpb.TypeCode(code)}, 0)
	return schema.PGTypeName(&spannerpb.Type{Code: spannerpb.TypeCode(code)}, length), dataType
}
