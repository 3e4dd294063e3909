package txn

import "github.com/spanload/spanload/localspanner/internal/spanerr"

// partition is what a partition token was made for: the session and the
// request (a fingerprint of the query and its parameters, or of the read).
type partition struct {
	session     string
	fingerprint string
}

// AddPartition records a partition token that PartitionQuery or PartitionRead
// made in this read-only transaction for the given session and request.
func (t *Txn) AddPartition(token []byte, session, fingerprint string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.partitions == nil {
		t.partitions = map[string]partition{}
	}
	t.partitions[string(token)] = partition{session: session, fingerprint: fingerprint}
}

// CheckPartition checks that a query or read with a partition token runs in the
// transaction, session and request the token was made for, as Spanner does.
func (t *Txn) CheckPartition(token []byte, session, fingerprint string) error {
	t.mu.Lock()
	p, ok := t.partitions[string(token)]
	t.mu.Unlock()
	switch {
	case !ok:
		return spanerr.InvalidArgument("Invalid partition token.")
	case p.session != session:
		return spanerr.InvalidArgument("Partitioned request was created for a different session.")
	case p.fingerprint != fingerprint:
		return spanerr.InvalidArgument("Partitioned request was created for different read or sql parameters.")
	}
	return nil
}
