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
