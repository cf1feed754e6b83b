package decide

import "fmt"

// Meaning says what a verdict lets its reader conclude, at the smallest
// effect of interest effect (percent) and the level alpha the verdict
// holds overall: the one place each verdict's meaning is spelled, so the
// text and JSON reports say the same.
func Meaning(verdict string, effect, alpha float64) string {
	switch verdict {
	case Improved, Regressed:
		way := map[string]string{Improved: "better", Regressed: "worse"}[verdict]
		return fmt.Sprintf("%s means the treatment is %s, by an estimate of at least the smallest effect of interest %.2f%%; where nothing changed, a campaign claims a change at most %.3g%% of the time", verdict, way, effect, 100*alpha)
	case NoChange:
		return fmt.Sprintf("%s means any change is smaller than the smallest effect of interest: the interval lies within ±%.2f%%", verdict, effect)
	case Inconclusive:
		return fmt.Sprintf("%s means these runs cannot tell a change of %.2f%% from none: more pairs, or less noise, may decide", verdict, effect)
	case Descriptive:
		return fmt.Sprintf("%s means one run per arm: the change shown is no evidence either way", verdict)
	}
	return ""
}
