package pacing

import (
	"math"
	"math/rand/v2"
)

// Schedule is the intended start times of a Poisson process whose rate can change at any moment.
// Exponential gaps are memoryless, so after a rate change the next arrival is drawn from the
// moment of the change: the new rate applies at once.
type Schedule struct {
	rng    *rand.Rand
	rate   float64
	NextAt float64
}

func NewSchedule(rate, start float64, rng *rand.Rand) *Schedule {
	s := &Schedule{rng: rng, rate: rate}
	s.NextAt = start + s.gap()
	return s
}

func (s *Schedule) Rate() float64 { return s.rate }

func (s *Schedule) gap() float64 {
	if s.rate <= 0 {
		return math.Inf(1)
	}
	return s.rng.ExpFloat64() / s.rate
}

// SetRate changes the rate; the next arrival is redrawn from now.
func (s *Schedule) SetRate(rate, now float64) {
	if rate != s.rate {
		s.rate = rate
		s.NextAt = now + s.gap()
	}
}

// Restart forgets arrivals that fell due while paused.
func (s *Schedule) Restart(now float64) { s.NextAt = now + s.gap() }

// PopDue appends to due the intended start of every arrival at or before now, oldest first.
func (s *Schedule) PopDue(now float64, due []float64) []float64 {
	for s.NextAt <= now {
		due = append(due, s.NextAt)
		s.NextAt += s.gap()
	}
	return due
}

// SkipDue moves past every arrival at or before now without keeping them.
func (s *Schedule) SkipDue(now float64) {
	for s.NextAt <= now {
		s.NextAt += s.gap()
	}
}
