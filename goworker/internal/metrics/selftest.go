package metrics

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Selftest backs the hidden --hdr-selftest flag that the Python tests use to check the encoding
// both ways: "10,20,30" prints the encoding of a histogram of those microsecond values;
// "@HISTF..." prints the decoded histogram's count, min, max and percentiles as JSON.
func Selftest(arg string) (string, error) {
	if text, ok := strings.CutPrefix(arg, "@"); ok {
		h, err := Decode(text)
		if err != nil {
			return "", err
		}
		summary := map[string]any{"count": h.TotalCount(), "min": h.Min(), "max": h.Max()}
		for _, p := range []float64{50, 90, 99, 99.9} {
			summary[fmt.Sprintf("p%g", p)] = h.ValueAtPercentile(p)
		}
		b, err := json.Marshal(summary)
		return string(b), err
	}
	h := NewHistogram()
	for _, field := range strings.Split(arg, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(field), 10, 64)
		if err != nil {
			return "", fmt.Errorf("not a list of integer microseconds: %q", field)
		}
		if err := h.RecordValue(ClampUS(float64(v))); err != nil {
			return "", err
		}
	}
	return Encode(h)
}
