package pacing

import "testing"

func TestWorkersShareRatesAndThreads(t *testing.T) {
	cases := []struct {
		total, workers int
		threads        []int
	}{
		{8, 1, []int{8}},
		{8, 3, []int{3, 3, 2}},
		{2, 4, []int{1, 1, 1, 1}}, // at least one each
		{10, 4, []int{3, 3, 2, 2}},
	}
	for _, c := range cases {
		for worker, want := range c.threads {
			if got := ShareThreads(c.total, worker, c.workers); got != want {
				t.Errorf("ShareThreads(%d, %d, %d) = %d; want %d", c.total, worker, c.workers, got, want)
			}
		}
		if got := Share(float64(c.total), c.workers); got*float64(c.workers) != float64(c.total) {
			t.Errorf("Share(%d, %d) = %g does not add up", c.total, c.workers, got)
		}
	}
}
