package frontend

import (
	dbpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
)

// requestDialect is the dialect a CreateDatabase asks for (GoogleSQL when unspecified).
func requestDialect(req *dbpb.CreateDatabaseRequest) (schema.Dialect, error) {
	switch req.GetDatabaseDialect() {
	case dbpb.DatabaseDialect_POSTGRESQL:
		return schema.PostgreSQL, nil
	case dbpb.DatabaseDialect_DATABASE_DIALECT_UNSPECIFIED, dbpb.DatabaseDialect_GOOGLE_STANDARD_SQL:
		return schema.GoogleSQL, nil
	}
	return 0, spanerr.InvalidArgument("Invalid database_dialect: %v", req.GetDatabaseDialect())
}

func dialectPB(d schema.Dialect) dbpb.DatabaseDialect {
	if d == schema.PostgreSQL {
		return dbpb.DatabaseDialect_POSTGRESQL
	}
	return dbpb.DatabaseDialect_GOOGLE_STANDARD_SQL
}
