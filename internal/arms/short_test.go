package arms

import "testing"

// skipShort skips, under go test -short, a test that kills or signals
// ranks, controllers or their daemons and waits out deadlines: each takes
// seconds, and on a loaded machine its timings are the first to go. go test
// without -short (CI) runs them.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("kills or signals processes and waits out deadlines: go test without -short runs it")
	}
}

// skipShortRun skips, under go test -short, a test that runs whole arms
// end to end, of the simulated system or of shell roles (a tenth of a
// second to seconds of CPU each, most of this package's quick-loop CPU
// when they ran): the quick loop keeps the unit tests of each step, go
// test without -short (CI) runs the whole arms.
func skipShortRun(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs whole arms end to end: go test without -short runs it")
	}
}
