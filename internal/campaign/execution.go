package campaign

import "sync"

// execution is one Execute of a campaign: its Config, which it reads and
// never changes, and the state of running it. Every method that runs the
// plan (starts, waits for, stops and records runs, takes looks, runs the
// campaign's hooks, tells Progress) is one of its own.
type execution struct {
	*Config
	total  int        // runs in the plan, for events
	serial sync.Mutex // one event at a time: the runs of a block end at once
}
