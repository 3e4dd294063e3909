// Package interp runs a workload definition (workloads/README.md): the SplitMix64 PRNG and the
// generators drawn from it, operations compiled from their steps and executed with the official
// client under each operation's own pacing, the load phase and the watcher. The definition comes
// in the start message; nothing here knows a workload of its own.
package interp

import (
	"math/bits"
	"strconv"
)

// SplitMix64's constants (workloads/README.md, "The PRNG").
const (
	gamma     = 0x9E3779B97F4A7C15
	fnvOffset = 0xCBF29CE484222325
	fnvPrime  = 0x100000001B3
	unitScale = 1.0 / (1 << 53)
)

// Mix is SplitMix64's finalizer.
func Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// FNV1a is FNV-1a 64 of the UTF-8 bytes of s.
func FNV1a(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// SplitMix64 is the one PRNG both runtimes draw from. Its zero value is a valid generator.
type SplitMix64 struct{ State uint64 }

func (r *SplitMix64) U64() uint64 {
	r.State += gamma
	return Mix(r.State)
}

// Below is an integer in [0, n): the high 64 bits of u64() * n. n = 0 stands for 2^64.
func (r *SplitMix64) Below(n uint64) uint64 {
	if n == 0 {
		return r.U64()
	}
	hi, _ := bits.Mul64(r.U64(), n)
	return hi
}

// Skip advances r past n draws, as n calls of U64 would.
func (r *SplitMix64) Skip(n uint64) { r.State += n * gamma }

// Unit is a double in [0, 1).
func (r *SplitMix64) Unit() float64 { return float64(r.U64()>>11) * unitScale }

// Between is an integer in [lo, hi] (lo <= hi).
func (r *SplitMix64) Between(lo, hi int64) int64 {
	return lo + int64(r.Below(uint64(hi)-uint64(lo)+1))
}

// Stream is the generator of draw sequence index under label (an execution, a load row).
func Stream(seed uint64, label string, index uint64) SplitMix64 {
	return SplitMix64{State: Mix(Mix(seed^FNV1a(label)) + index)}
}

// StreamBase is Mix(seed ^ fnv1a(label)): Stream(seed, label, i) is StreamAt(base, i), so a hot
// loop hashes its label once.
func StreamBase(seed uint64, label string) uint64 { return Mix(seed ^ FNV1a(label)) }

// StreamAt is the stream of index i under a StreamBase.
func StreamAt(base, index uint64) SplitMix64 { return SplitMix64{State: Mix(base + index)} }

// OperationLabel is the stream label of operation op on worker w; LoadLabel of table's load rows.
func OperationLabel(op string, worker int) string { return "op/" + op + "/" + strconv.Itoa(worker) }
func LoadLabel(table string) string               { return "load/" + table }
