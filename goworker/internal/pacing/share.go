package pacing

// Share is this worker's part of a rate split evenly between workers.
func Share(total float64, workers int) float64 { return total / float64(workers) }

// ShareThreads is this worker's part of a thread count: the remainder goes to the first workers.
func ShareThreads(total, worker, workers int) int {
	n := total / workers
	if worker < total%workers {
		n++
	}
	return max(1, n)
}
