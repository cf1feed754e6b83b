package arms

import (
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/rankwrap"

	"github.com/abbench/abbench/internal/proctree"
)

// rankProc is one rank as the controller follows it: its followers, and
// whether its end is expected; its driver reports how it runs and ends
// through Rank.
type rankProc struct {
	*ranks.Rank
	client bool
	// stopping is set once teardown signalled the rank: its exit is expected.
	stopping bool
	// ready and mode follow the rank's log for its readiness probe and
	// its mode line, each reading only what the log gained.
	ready, mode *follower
}

// newRankProc is rank of role logging to log; its end is sent to exited
// (nil: nowhere).
func newRankProc(role string, rank int, client bool, log string, exited chan<- *rankProc) *rankProc {
	p := &rankProc{client: client}
	p.Rank = ranks.NewRank(role, rank, log, func(*ranks.Rank) {
		if exited != nil {
			exited <- p
		}
	})
	return p
}

func (p *rankProc) exited() bool { return p.Ended() }

// exitCode is the rank's exit status, or -1 when it has none.
func (p *rankProc) exitCode() int { return p.Exit().Code }

// cleanStop reports whether the rank ended as a clean shutdown: exit 0, or
// death by the SIGTERM teardown sent (a program need not handle it).
func (p *rankProc) cleanStop() bool {
	return !p.Killed() && p.Ended() && p.Exit().Clean(p.stopping)
}

// howEnded describes the exit for a reason's detail.
func (p *rankProc) howEnded() string { return p.Exit().Reason }

// openLog creates the rank's log as its driver does (ranks.Rank.OpenLog).
func (p *rankProc) openLog() error { return p.TouchLog() }

// sweepWait bounds the wait for swept processes to die.
const sweepWait = 3 * time.Second

// survivorsAfter polls until no process that started at or after since
// (survivorsSince) carries token, for at most wait, and returns those
// still alive then.
func survivorsAfter(token string, since uint64, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		left := survivorsSince(token, since)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		proctree.Kill(left)
		time.Sleep(20 * time.Millisecond)
	}
}

// Survivors lists the live processes carrying the run's token.
func Survivors(token string) []int { return survivorsSince(token, 0) }

// survivorsSince lists the live processes carrying the run's token among
// those that started at or after since (clock ticks after boot of the
// controller's start, proctree.StartTime; 0: every process): only a
// process the controller or its ranks started can carry the token.
func survivorsSince(token string, since uint64) []int {
	return proctree.WithEnvSince(rankwrap.EnvToken, token, since)
}
