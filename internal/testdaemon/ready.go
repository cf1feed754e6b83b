// Package testdaemon starts the daemons tests talk to and waits, bounded,
// until each answers a request. A socket or pid file only says a daemon got
// that far: ssh-agent binds its socket before it listens, and a client that
// connects in between is refused.
package testdaemon

import (
	"errors"
	"fmt"
	"time"
)

// ErrExited, wrapped by an answer's error, ends a wait at once: the daemon
// is gone and will never answer.
var ErrExited = errors.New("exited")

// pollEvery is the pause between two requests of a wait.
const pollEvery = 10 * time.Millisecond

// Ready asks answers until it returns nil. After within, or as soon as an
// answer wraps ErrExited, it fails naming what did not become ready, how long
// it waited and the last answer.
func Ready(what string, within time.Duration, answers func() error) error {
	start := time.Now()
	deadline := start.Add(within)
	for {
		err := answers()
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrExited) || time.Now().After(deadline) {
			return fmt.Errorf("%s did not become ready (no answer to a request) within %s: %w",
				what, time.Since(start).Round(time.Millisecond), err)
		}
		time.Sleep(pollEvery)
	}
}
