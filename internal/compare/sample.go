package compare

import "github.com/abbench/abbench/internal/decide"

// rawArms fills the arms' raw values of a censored comparison, marked not comparable by the verdict.
func (g *gate) rawArms() {
	for _, name := range g.arms {
		g.r.Arms = append(g.r.Arms, g.armSample(name))
	}
}

func (g *gate) armSample(name string) Arm {
	a := Arm{Name: name, Values: []float64{}}
	for _, run := range g.runs {
		if run.Evidence.Arm != name {
			continue
		}
		a.Env = run.Evidence.ArmEnv
		if !counted(run) {
			continue // a warm-up run
		}
		if v := metricOf(run.Evidence, g.opts.Metric); v != nil {
			a.Values = append(a.Values, *v)
		}
	}
	a.N = len(a.Values)
	if a.N > 0 {
		var sd float64
		a.Median, a.Mean, sd = decide.Describe(a.Values)
		if a.Mean != 0 && a.N > 1 {
			a.CV = sd / a.Mean
		}
	}
	return a
}
