package storage

import "github.com/spanload/spanload/localspanner/query"

func queryRuntime(err error) error { return query.RuntimeError(err) }
