package evidence

import (
	"strings"
	"testing"
)

// phases' step says which lines belong to the measured lifecycle, and
// records what the cross-rank rule needs, for each start the scenario and
// the role's rules give. Lines: "-" a fact or counter line, "m" a mode
// line, "e" a lifecycle-end line, "me" both.
func TestPhasesStep(t *testing.T) {
	type flags struct{ profEnded, started, ended, another bool }
	cases := []struct {
		name                       string
		profiling, hasMode, hasEnd bool
		lines                      string
		measured                   string // per line: 1 in the measured lifecycle
		want                       flags
	}{
		{"profiling, then the measured lifecycle", true, true, true,
			"- m e - m - e - m", "000011100", flags{true, true, true, true}},
		{"profiling that never ends", true, true, true,
			"- m - m", "0000", flags{}},
		{"profiling ended, no mode line after it", true, true, true,
			"m e - e", "0000", flags{profEnded: true}},
		{"no profiling: the first mode line starts", false, true, true,
			"- e m - e -", "001110", flags{started: true, ended: true}},
		{"a further mode line after the end is another lifecycle", false, true, true,
			"m e - m e", "11000", flags{started: true, ended: true, another: true}},
		{"one line starts and ends it", false, true, true,
			"- me - m", "0100", flags{started: true, ended: true, another: true}},
		{"started, never ended", false, true, true,
			"m - m -", "1111", flags{started: true}},
		{"profiling without an end rule cannot end: the mode line starts", true, true, false,
			"- m - m", "0111", flags{started: true, ended: true}},
		{"no mode rule: measured from the start, through the end line", false, false, true,
			"- e - e", "1100", flags{started: true, ended: true}},
		// Validation requires a mode rule with profiling, but not on the
		// role of the lifecycle-end rule: such a role never starts.
		{"profiling, an end rule and no mode rule: the measured lifecycle never starts", true, false, true,
			"- e - e", "0000", flags{profEnded: true}},
		{"neither rule: the whole scope, ended with it", false, false, false,
			"- - -", "111", flags{started: true, ended: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPhases(c.profiling, c.hasMode, c.hasEnd)
			var measured strings.Builder
			for _, tok := range strings.Fields(c.lines) {
				in := p.step(phaseLine{mode: strings.Contains(tok, "m"), end: strings.Contains(tok, "e")})
				measured.WriteByte("01"[btoi(in)])
			}
			p.eof()
			got := flags{p.profEnded, p.started, p.ended, p.anotherLifecycle}
			if measured.String() != c.measured || got != c.want {
				t.Fatalf("measured %s, want %s; %+v, want %+v", measured.String(), c.measured, got, c.want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
