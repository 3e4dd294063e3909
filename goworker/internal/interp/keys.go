package interp

// The generators of versioned writes (workloads/README.md, "Versioned writes"): versioned_key,
// fresh_key, version and writer_id. Their draws go through the worker's write ledger, so that the
// watch's reconciliation (engine/reconcile.py) can prove every final version was received.

import (
	"fmt"

	"github.com/spanload/spanload/goworker/internal/ledger"
)

// keyKind is what a key generator draws.
type keyKind uint8

const (
	keyNone      keyKind = iota
	keyVersioned         // an owned key of [0, max), not in flight, with its next version
	keyFresh             // this run's next new key, version 1
	keyVersion           // the version of the key drawn in the same row, else in the values
	keyWriter            // this worker's writer id
)

var keyKinds = map[string]keyKind{"versioned_key": keyVersioned, "fresh_key": keyFresh, "version": keyVersion,
	"writer_id": keyWriter}

// compileKeyGen compiles a key generator (the kinds of keyKinds).
func compileKeyGen(g *Gen, spec *GenSpec, knobs Knobs) error {
	g.key = keyKinds[spec.Kind]
	if spec.NullFraction != 0 {
		return fmt.Errorf("%s takes no null_fraction: a write's key, version and writer are never NULL", spec.Kind)
	}
	g.Type = TypeInt64
	g.draw = func(*SplitMix64, int64) any { return nil } // drawn by keyState.draw
	switch g.key {
	case keyWriter:
		g.Type = TypeString
	case keyVersioned:
		var p struct {
			Max Number `json:"max"`
		}
		if err := decode(spec.Params, &p); err != nil {
			return fmt.Errorf("versioned_key: %w", err)
		}
		n, err := knobs.integer(p.Max, "versioned_key.max")
		if err != nil {
			return err
		}
		if n < 1 {
			return fmt.Errorf("versioned_key.max must be at least 1 (got %d)", n)
		}
		g.keySpace = n
	}
	return nil
}

// keyState is one execution's keys: those it reserved in the ledger, and the versions a
// `version` takes.
type keyState struct {
	ledger   *ledger.WriteLedger
	writerID string
	writes   []ledger.Write
	values   int64 // the version of the key drawn in the execution's values (0: none)
	row      int64 // the version of the key drawn in the row being drawn (0: none)
}

// draw draws a key generator's value; a version is nil here, filled in once its row is drawn
// (fillVersions). inRow: drawn in a step's row, else in the values.
func (k *keyState) draw(g *Gen, r *SplitMix64, inRow bool) (any, error) {
	switch g.key {
	case keyWriter:
		return k.writerID, nil
	case keyVersion:
		return nil, nil
	}
	if k.ledger == nil { // drawn outside a runtime (a test): a ledger of its own
		k.ledger = newLedger("", 0, 1)
	}
	var w ledger.Write
	if g.key == keyFresh {
		w = k.ledger.ReserveFresh()
	} else {
		var err error
		if w, err = k.ledger.Pick(k.writes, g.keySpace, func(slots int64) int64 { return r.Between(0, slots-1) }); err != nil {
			return nil, err
		}
	}
	k.writes = append(k.writes, w)
	if inRow {
		k.row = w.Version
	} else {
		k.values = w.Version
	}
	return w.Key, nil
}

// version is what a `version` draws: the row's key's version, else the values'.
func (k *keyState) version() int64 {
	if k.row != 0 {
		return k.row
	}
	return k.values
}

// release gives back the keys of an execution that failed (outcomeUnknown: it may have committed).
func (k *keyState) release(outcomeUnknown bool) {
	if len(k.writes) > 0 {
		k.ledger.Failed(k.writes, outcomeUnknown)
	}
}

// newLedger is worker's write ledger in run runID of workers (its new keys FreshKeys(runID, workers)).
func newLedger(runID string, worker, workers int) *ledger.WriteLedger {
	l := ledger.NewWriteLedger(worker, workers)
	l.SetFresh(ledger.NewFreshKeys(runID, workers))
	return l
}

// usesKeys says whether a program draws versioned_key or fresh_key anywhere.
func (p *program) usesKeys() bool {
	versioned := func(g *Gen) bool { return g != nil && (g.key == keyVersioned || g.key == keyFresh) }
	for _, g := range p.values {
		if versioned(g) {
			return true
		}
	}
	for _, op := range p.ops {
		for _, s := range op.steps {
			for _, src := range s.srcs {
				if src.kind == srcGen && versioned(src.gen) {
					return true
				}
			}
		}
	}
	return false
}
