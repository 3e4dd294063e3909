package query

import (
	"strings"

	"github.com/cloudspannerecosystem/memefish/ast"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/schema"
)

// notRootPartitionable is Spanner's answer to a PartitionQuery whose plan does not
// start with a distributed union.
const notRootPartitionable = "Query is not root partitionable since it does not have a DistributedUnion at the root. " +
	"Please check the conditions for a query to be root-partitionable."

// CheckPartitionable returns nil when sql may be split by PartitionQuery: a query
// whose plan in Spanner is one distributed union at the root, or has no
// distributed operator at all. Spanner's documentation ("Read data in parallel")
// defines it by the plan; this server has no distributed plan, so it decides by
// the query's shape: one SELECT over a table, or over tables of one interleave
// hierarchy, without ORDER BY, LIMIT, DISTINCT, GROUP BY, HAVING, aggregates or set
// operations (each puts a global operator above the distributed union), or a
// SELECT without FROM. DML is refused too: PartitionQuery takes queries only.
func CheckPartitionable(cat *schema.Catalog, sql string) error {
	stmt, err := parseFor(cat, sql)
	if err != nil {
		return err
	}
	qs, ok := stmt.(*ast.QueryStatement)
	if !ok {
		return errorf(codes.InvalidArgument, "PartitionQuery accepts only queries; DML statements are run with ExecuteSql or ExecuteBatchDml, or as Partitioned DML.")
	}
	if !partitionableQuery(cat, qs.Query) {
		return errorf(codes.InvalidArgument, notRootPartitionable)
	}
	return nil
}

func partitionableQuery(cat *schema.Catalog, q ast.QueryExpr) bool {
	switch x := q.(type) {
	case *ast.Query:
		if x.OrderBy != nil || x.Limit != nil || len(x.PipeOperators) > 0 || x.With != nil {
			return false
		}
		return partitionableQuery(cat, x.Query)
	case *ast.SubQuery:
		return partitionableQuery(cat, x.Query)
	case *ast.Select:
		if x.AllOrDistinct == ast.AllOrDistinctDistinct || x.GroupBy != nil || x.Having != nil {
			return false
		}
		for _, item := range x.Results {
			if hasAggregate(item) {
				return false
			}
		}
		if x.From == nil {
			return true
		}
		_, ok := scanRoot(cat, x.From.Source)
		return ok
	default: // set operations, FROM-first queries
		return false
	}
}

// scanRoot returns the top-level table of the interleave hierarchy a FROM clause
// scans, and whether the clause is a scan (or a join) within that one hierarchy.
func scanRoot(cat *schema.Catalog, src ast.TableExpr) (*schema.Table, bool) {
	switch x := src.(type) {
	case *ast.TableName:
		t, ok := cat.Table(x.Table.Name)
		if !ok {
			return nil, false
		}
		for t.Parent != nil {
			t = t.Parent
		}
		return t, true
	case *ast.ParenTableExpr:
		return scanRoot(cat, x.Source)
	case *ast.Join:
		left, ok := scanRoot(cat, x.Left)
		if !ok {
			return nil, false
		}
		switch r := x.Right.(type) {
		case *ast.Unnest, *ast.PathTableExpr: // an array of the row: a local cross apply
			return left, true
		default:
			right, ok := scanRoot(cat, r)
			return left, ok && right == left
		}
	}
	return nil, false
}

// hasAggregate reports whether an expression calls an aggregate function outside
// any sub-query (a sub-query's aggregate runs per row).
func hasAggregate(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ScalarSubQuery, *ast.ArraySubQuery, *ast.ExistsSubQuery, *ast.SubQuery:
			return false
		case *ast.CountStarExpr:
			found = true
		case *ast.CallExpr:
			if len(x.Func.Idents) == 1 && aggregates[strings.ToUpper(x.Func.Idents[0].Name)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// CheckFullyPartitionable returns nil when a Partitioned DML statement is fully
// partitionable: Spanner's "Partitioned DML" page defines it as a union of
// statements that each touch one row of the table and no other table, so a
// statement with a sub-query (another table, or a self-join) is refused, with
// INVALID_ARGUMENT as for any other statement Partitioned DML cannot run.
func CheckFullyPartitionable(cat *schema.Catalog, sql string) error {
	stmt, err := parseFor(cat, sql)
	if err != nil {
		return err
	}
	found := false
	ast.Inspect(stmt, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.ScalarSubQuery, *ast.ArraySubQuery, *ast.ExistsSubQuery, *ast.SubQueryInCondition, *ast.SubQuery:
			found = true
		}
		return !found
	})
	if found {
		return errorf(codes.InvalidArgument, "Partitioned DML only supports fully partitionable statements: it reads no other table and no other row than the one it changes, so it cannot have a subquery.")
	}
	return nil
}
