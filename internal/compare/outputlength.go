package compare

import (
	"fmt"
	"math"

	"github.com/abbench/abbench/internal/reason"
)

// outputLengths holds the arms to equal work when their scenario declares
// {output_tokens: equal}: each arm's output tokens per run (the mean of
// its counted runs) against the baseline's, within the criterion's
// tolerance. An arm whose server stops its answers early does less work
// per request, and its faster throughput or latency is no improvement.
func (g *gate) outputLengths() {
	var within *float64
	for _, run := range g.runs {
		if w := run.Evidence.OutputTokensWithin; w != nil {
			within = w
			break
		}
	}
	if within == nil {
		return
	}
	perRun := map[string][]int{}
	for _, run := range g.runs {
		if r := run.Evidence.Throughput; counted(run) && r != nil && r.OutputTokens != nil && *r.OutputTokens > 0 {
			perRun[run.Evidence.Arm] = append(perRun[run.Evidence.Arm], *r.OutputTokens)
		}
	}
	base, ok := meanTokens(perRun[g.r.Baseline])
	if !ok {
		return // the baseline's runs are censored for their own reasons
	}
	for _, arm := range g.arms {
		m, ok := meanTokens(perRun[arm])
		if arm == g.r.Baseline || !ok {
			continue
		}
		if diff := 100 * (m - base) / base; math.Abs(diff) > *within {
			g.add(reason.New(reason.OutputLengthMismatch, "arm %s generated %s output tokens per run, the baseline %s %s (%+.1f%%, %s): the arms did not do the same work, so a faster arm may only have answered shorter (check the server's stopping: EOS, max_tokens, ignore_eos)",
				arm, tokens(m), g.r.Baseline, tokens(base), diff, allowed(*within)))
		}
	}
}

func meanTokens(counts []int) (float64, bool) {
	if len(counts) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, n := range counts {
		sum += float64(n)
	}
	return sum / float64(len(counts)), true
}

func tokens(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func allowed(within float64) string {
	if within == 0 {
		return "output_tokens: equal allows no difference"
	}
	return fmt.Sprintf("output_tokens: equal allows %g%%", within)
}
