package storage

import "context"

// PendingQuery is a read-only statement to run with the first Pending of a
// transaction's writes applied.
type PendingQuery struct {
	Pending int
	SQL     string
	Args    []any
}

// HashesWithPending runs each query with its prefix of muts applied (in one write
// transaction that is rolled back; queries must come in ascending Pending order,
// and the writes are applied once, prefix after prefix) and returns the hash of
// each one's rows, as HashQuery does over the committed rows. It is for the
// validate callback of Commit, which holds the commit lock: the reads of a
// read-write transaction that saw its own earlier writes are checked again with
// those writes in place, so that they conflict only if another transaction changed
// the rows they read.
func (d *DB) HashesWithPending(ctx context.Context, muts []*Mutation, qs []PendingQuery) ([]uint64, error) {
	sums := make([]uint64, len(qs))
	err := d.withPendingLocked(ctx, nil, func(query Querier, apply func(*Mutation) error) error {
		applied := 0
		for i, q := range qs {
			for ; applied < q.Pending && applied < len(muts); applied++ {
				if err := apply(muts[applied]); err != nil {
					return err
				}
			}
			h, err := HashQuery(ctx, query, q.SQL, q.Args)
			if err != nil {
				return err
			}
			sums[i] = h
		}
		return nil
	})
	return sums, err
}
