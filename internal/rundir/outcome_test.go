package rundir

import "testing"

// A controller that exited 0 (accepted) or 3 (censored) left its run's
// result; any other status, and -1 (a signal, or a requeued job that never
// ran again), did not, so compare and the run summary censor the run.
func TestOutcomeControllerFailed(t *testing.T) {
	for _, c := range []struct {
		o    *Outcome
		want bool
	}{
		{nil, false},
		{&Outcome{ExitCode: 0}, false},
		{&Outcome{ExitCode: 3}, false},
		{&Outcome{ExitCode: 1}, true},
		{&Outcome{ExitCode: 2}, true},
		{&Outcome{ExitCode: -1}, true},
	} {
		if got := c.o.ControllerFailed(); got != c.want {
			t.Errorf("%+v: ControllerFailed %v, want %v", c.o, got, c.want)
		}
	}
}
