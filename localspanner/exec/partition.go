package exec

import (
	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/query"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// CheckPartitionQuery checks a PartitionQuery's statement in t: it must be a query
// that compiles (its errors show at PartitionQuery, as in Spanner) and that is root
// partitionable. This server runs each query in one partition, so nothing else is
// prepared here; the partition's ExecuteSql runs the statement whole.
func (e *Engine) CheckPartitionQuery(db *storage.DB, t *txn.Txn, st Statement) error {
	if IsDML(st.SQL) {
		return spanerr.InvalidArgument("PartitionQuery accepts only queries; DML statements are run with ExecuteSql or ExecuteBatchDml, or as Partitioned DML.")
	}
	params, err := toParams(st.Params, st.Types)
	if err != nil {
		return err
	}
	if _, err := query.Compile(db.Catalog(), st.SQL, params, t.Source()); err != nil {
		return err
	}
	return query.CheckPartitionable(db.Catalog(), st.SQL)
}

// CheckPartitionRead checks a PartitionRead's table, index, columns and key set.
func (e *Engine) CheckPartitionRead(db *storage.DB, req ReadArgs) error {
	_, err := readSpec(db.Catalog(), req)
	return err
}
