package storage

import "context"

// HashWithPending runs the read-only statement q with the writes muts applied (in
// a write transaction that is rolled back) and returns the hash of its rows, as
// HashQuery does over the committed rows. It is for the validate callback of
// Commit, which holds the commit lock: a read-write transaction's read that saw
// its own earlier writes is checked again with those writes in place, so that it
// conflicts only if another transaction changed the rows it read.
func (d *DB) HashWithPending(ctx context.Context, muts []*Mutation, q string, args []any) (uint64, error) {
	var sum uint64
	err := d.withPendingLocked(ctx, muts, func(query Querier, _ func(*Mutation) error) error {
		h, err := HashQuery(ctx, query, q, args)
		sum = h
		return err
	})
	return sum, err
}
