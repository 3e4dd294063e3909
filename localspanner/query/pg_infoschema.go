package query

import "strings"

// pgSchemaName is the schema a PostgreSQL database's tables are in (Spanner's
// PostgreSQL information schema: table_schema 'public'; GoogleSQL's is ”).
const pgSchemaName = "public"

// pgInfoSchema turns an INFORMATION_SCHEMA table built for GoogleSQL into the one a
// PostgreSQL database shows: the user objects' schema columns (TABLE_SCHEMA,
// CONSTRAINT_SCHEMA, ...) say 'public' instead of ”, and the column names are lower
// case, as PostgreSQL's information_schema spells them. This is what the clients'
// Database.list_tables() and Table.exists() filter on (WHERE TABLE_SCHEMA = $1, 'public').
func pgInfoSchema(it *infoTable) {
	for i, name := range it.cols {
		if strings.HasSuffix(name, "_SCHEMA") || name == "SCHEMA_NAME" {
			for _, row := range it.rows {
				if row[i] == lit("") {
					row[i] = lit(pgSchemaName)
				}
			}
		}
		it.cols[i] = strings.ToLower(name)
	}
}
