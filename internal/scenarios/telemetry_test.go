package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTelemetryKeys: telemetry: is checked at its line, its zero value is
// every default, and a scenario without it keeps its matched digest (the
// committed bundles' runs verify).
func TestTelemetryKeys(t *testing.T) {
	for _, c := range []struct{ telemetry, want string }{
		{"{gpu: always}", `s.yaml:15: telemetry.gpu "always": auto (sample when nvidia-smi is on PATH), on (required) or off`},
		{"{interval: 1ms}", "telemetry.interval 1ms: at least 10ms"},
		{"{throttled_max: 20}", `throttled_max "20": a percentage at least 0 and below 100`},
		{"{sm_clocks: fail}", `telemetry.sm_clocks "fail": warn or censor`},
	} {
		_, err := load(t, base+"telemetry: "+c.telemetry+"\n")
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.telemetry, err, c.want)
		}
	}
	plain, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	tl := plain.Telemetry
	if frac, _ := tl.ThrottledFraction(); tl.GPUMode() != "auto" || tl.SampleInterval() != 200*time.Millisecond || frac != 0.2 || tl.ClockPolicy() != "warn" {
		t.Errorf("defaults %+v", tl)
	}
	set, err := load(t, base+"telemetry: {gpu: \"on\", interval: 100ms, throttled_max: 5%, sm_clocks: censor}\n")
	if err != nil {
		t.Fatal(err)
	}
	if frac, _ := set.Telemetry.ThrottledFraction(); frac != 0.05 || set.Telemetry.GPUMode() != "on" || set.MatchedDigest() == plain.MatchedDigest() {
		t.Errorf("declared %+v", set.Telemetry)
	}
	defaults, err := load(t, base+"telemetry: {gpu: auto, interval: 200ms, throttled_max: 20%, sm_clocks: warn}\n")
	if err != nil {
		t.Fatal(err)
	}
	if defaults.MatchedDigest() != plain.MatchedDigest() {
		t.Errorf("the defaults written out change the matched digest")
	}
	if !strings.Contains(string(plain.Canonical()), `"name":"t"`) || strings.Contains(string(plain.Canonical()), "telemetry") {
		t.Errorf("a scenario without telemetry: has it in its canonical form %s", plain.Canonical())
	}
}
