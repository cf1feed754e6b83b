package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// errPastDeadline ends a wait whose run outlived its deadline.
var errPastDeadline = errors.New("past its deadline")

// pollInterval is how often a waiting campaign looks at its run.
const pollInterval = 200 * time.Millisecond

// wait waits for a run, reporting its phase. The deadline counts from when
// the run's current attempt started running (a requeued job starts again;
// time queued does not count), and c.MaxPending bounds the time queued.
func (c *execution) wait(ctx context.Context, r launcher.Run, pr *rundir.PlannedRun, deadline time.Duration) (rundir.Outcome, error) {
	start := time.Now()
	attempt, pendingSince := start, start
	lastPhase := ""
	maxPending := c.MaxPending
	if maxPending <= 0 {
		maxPending = time.Hour
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, pollInterval)
		res, err := r.Wait(wctx)
		cancel()
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		sched := ""
		if s, ok := r.(interface{ Status() string }); ok {
			sched = s.Status() // pending, running, ... as the scheduler says
		}
		pending := strings.HasPrefix(sched, "pending")
		now := time.Now()
		if pending {
			attempt = now
			if now.Sub(pendingSince) > maxPending {
				return res, fmt.Errorf("%w: queued for more than %s, the most its allocation may stay queued", errPastDeadline, maxPending)
			}
		} else {
			pendingSince = now
			if now.Sub(attempt) > deadline {
				return res, fmt.Errorf("%w of %s (the scenario's deadlines and a margin)", errPastDeadline, deadline)
			}
		}
		phase := "running"
		if st, err := rundir.LatestStatus(pr.Dir); err == nil && !pending {
			phase = st.Phase
		} else if sched != "" {
			phase = sched
		}
		c.event(pr, phase, time.Since(start), phase == lastPhase)
		lastPhase = phase
	}
}
