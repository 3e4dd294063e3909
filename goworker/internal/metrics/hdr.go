// Package metrics holds what one worker counts in a report interval: latency histograms
// (HdrHistogram, microseconds, 3 significant digits, 1 us .. 1 h, as model/metrics.py), counters
// and errors by gRPC code.
package metrics

import (
	"fmt"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

const (
	LowestUS          = 1
	HighestUS         = 3_600_000_000 // one hour
	SignificantDigits = 3
)

// NewHistogram is an empty histogram with Spanload's range and precision.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestUS, HighestUS, SignificantDigits)
}

// ClampUS is a latency in microseconds clamped into the trackable range.
func ClampUS(us float64) int64 {
	switch {
	case us < LowestUS:
		return LowestUS
	case us > HighestUS:
		return HighestUS
	}
	return int64(us)
}

// Encode is the base64 of HdrHistogram's standard compressed (V2) encoding, "HISTFAAA...".
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// Decode is the inverse of Encode.
func Decode(text string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("not a base64 compressed HdrHistogram: %w", err)
	}
	return h, nil
}

// Recorder keeps per-operation histograms and hands out their interval deltas.
type Recorder struct {
	mu         sync.Mutex
	histograms map[string]*hdrhistogram.Histogram
	spare      []*hdrhistogram.Histogram // reset histograms for reuse (each is ~370 KB)
}

func NewRecorder() *Recorder {
	return &Recorder{histograms: map[string]*hdrhistogram.Histogram{}}
}

func (r *Recorder) histogramLocked(op string) *hdrhistogram.Histogram {
	h := r.histograms[op]
	if h == nil {
		if n := len(r.spare); n > 0 {
			h, r.spare = r.spare[n-1], r.spare[:n-1]
		} else {
			h = NewHistogram()
		}
		r.histograms[op] = h
	}
	return h
}

// Record adds one latency in microseconds.
func (r *Recorder) Record(op string, us float64) {
	r.mu.Lock()
	_ = r.histogramLocked(op).RecordValue(ClampUS(us))
	r.mu.Unlock()
}

// RecordMany adds several latencies of one operation under one lock.
func (r *Recorder) RecordMany(op string, us []float64) {
	r.mu.Lock()
	h := r.histogramLocked(op)
	for _, v := range us {
		_ = h.RecordValue(ClampUS(v))
	}
	r.mu.Unlock()
}

// Take returns the encoded deltas since the previous call of every op that recorded something.
func (r *Recorder) Take() (map[string]string, error) {
	r.mu.Lock()
	taken := r.histograms
	r.histograms = make(map[string]*hdrhistogram.Histogram, len(taken))
	r.mu.Unlock()
	out := make(map[string]string, len(taken))
	var firstErr error
	for op, h := range taken {
		if h.TotalCount() > 0 {
			text, err := Encode(h)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[op] = text
		}
		h.Reset()
		r.mu.Lock()
		r.spare = append(r.spare, h)
		r.mu.Unlock()
	}
	return out, firstErr
}
