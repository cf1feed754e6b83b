package arms

import (
	"context"
	"os"
	"time"
)

// drain waits until no log has grown for 200 ms, at most the drain deadline.
func (c *controller) drain(ctx context.Context) {
	end := time.Now().Add(time.Duration(c.s.Deadlines.Drain))
	size := func() int64 {
		var n int64
		for _, p := range c.procs {
			if fi, err := os.Stat(p.Log); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	last, since := size(), time.Now()
	for time.Now().Before(end) && time.Since(since) < 200*time.Millisecond {
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		if n := size(); n != last {
			last, since = n, time.Now()
		}
	}
}
