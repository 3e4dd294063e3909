package interp

import (
	"fmt"
	"time"
)

// drainWith polls until a page is not full: called after every writer stopped, the poller has then
// seen every change. A failing poll is retried every backoff until giveUp has passed; then the
// error names the poller and wraps the last failure (workers/interp/poll_loop.py drain).
func drainWith(poll func() (bool, error), giveUp, backoff time.Duration, name string) error {
	deadline := time.Now().Add(giveUp)
	for {
		full, err := poll()
		if err == nil && !full {
			return nil
		}
		if err != nil {
			if !time.Now().Before(deadline) {
				return fmt.Errorf("%s: the final drain failed for %.0f s; last error: %w", name, giveUp.Seconds(), err)
			}
			time.Sleep(backoff)
		}
	}
}
