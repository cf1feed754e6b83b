package decide

import "testing"

// monteCarlo skips a Monte Carlo of many simulated campaigns under go test
// -short (the quick loop) and under -race: it starts no goroutine the race
// detector could watch, and under it the validation's thousands of
// campaigns ran past go test's 25 minutes on two cores. .ci/run runs
// this package once more without -race, where every one of them runs,
// side by side: each is one goroutine's work, and run one after another
// they took nine minutes of a two-core CI machine.
func monteCarlo(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what + ": go test without -short runs it")
	}
	if raceDetector {
		t.Skip(what + ": no goroutine to race; go test without -race runs it (.ci/run's step for this package)")
	}
	t.Parallel()
}
