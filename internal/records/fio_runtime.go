package records

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fioShortRun is how much of its runtime a time_based job must have run:
// fio runs it until the runtime has passed (10,001 ms of 10 s), so one
// that ran less than this share of it was stopped.
const fioShortRun = 0.95

// fioStoppedEarly says whether a time_based job ran well short of its
// runtime (a problem naming it): fio writes such a run's partial numbers
// as it writes a whole one. A runtime abbench cannot read is a problem
// too, since nothing then shows the job ran it.
func (r *Record) fioStoppedEarly(j fioJob, n, of int, global map[string]string) bool {
	option := func(key string) (string, bool) {
		if v, ok := j.Options[key]; ok {
			return v, true
		}
		v, ok := global[key]
		return v, ok
	}
	if tb, ok := option("time_based"); !ok || tb == "0" {
		return false
	}
	runtime, ok := option("runtime")
	if !ok {
		runtime, ok = option("timeout")
	}
	if !ok {
		return false
	}
	want, err := fioSeconds(runtime)
	if err != nil {
		r.problem("job %q (job %d of %d): runtime %q: %v", j.Name, n+1, of, runtime, err)
		return true
	}
	ran := 0.0
	for _, d := range j.directions() {
		if d != nil {
			ran = max(ran, d.Runtime/1000)
		}
	}
	if ran < fioShortRun*want {
		r.problem("job %q (job %d of %d) ran %.3f s of its time_based runtime %s (%g s): it was stopped early", j.Name, n+1, of, ran, runtime, want)
		return true
	}
	return false
}

// fioTimeUnits are the suffixes of fio's time options, in seconds; a
// number without one is seconds.
var fioTimeUnits = []struct {
	suffix  string
	seconds float64
}{{"usec", 1e-6}, {"us", 1e-6}, {"msec", 1e-3}, {"ms", 1e-3}, {"sec", 1}, {"s", 1}, {"min", 60}, {"m", 60}, {"hr", 3600}, {"h", 3600}, {"d", 86400}}

// fioSeconds reads a fio time option ("300", "5m", "500ms") as seconds.
func fioSeconds(s string) (float64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	factor := 1.0
	for _, u := range fioTimeUnits {
		if strings.HasSuffix(v, u.suffix) {
			v, factor = strings.TrimSuffix(v, u.suffix), u.seconds
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a time fio reads (a positive number with us, ms, s, m, h or d)")
	}
	return f * factor, nil
}
