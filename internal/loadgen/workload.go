package loadgen

import (
	"fmt"
	"math"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// checkWorkload says what is wrong with the workload options beyond a
// prompts file's: a dataset's own output lengths and messages, a duration,
// warm-up and ramp.
func (o Options) checkWorkload(items []Item) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	badOption := func(option string, value any, format string, args ...any) {
		errs = append(errs, optionError(option, value, format, args...))
	}
	for _, it := range items {
		if it.MaxTokens > 0 && o.MaxTokens > 0 {
			badOption("max-tokens", o.MaxTokens, "the workload gives each request its own output length (a dataset's reply, a synthetic output_len): leave max tokens out")
			break
		}
	}
	for _, it := range items {
		if o.Endpoint == Completions && (len(it.Messages) > 1 || len(it.Messages) == 1 && it.Messages[0].Role != "user") {
			where := it.Where
			if where == "" {
				where = fmt.Sprintf("line %d", it.Prompt.Line)
			}
			bad("endpoint completions sends one prompt, but the request of %s carries %d messages (history, or a system prompt): use endpoint chat (--endpoint chat)", where, len(it.Messages))
			break
		}
	}
	for _, n := range []struct {
		option   string
		value    any
		negative bool
		zero     string
	}{{"duration", o.Duration, o.Duration < 0, "requests x rounds, no duration"}, {"warmup", o.Warmup, o.Warmup < 0, "no warm-up"}, {"ramp-over", o.RampOver, o.RampOver < 0, "no ramp"}} {
		if n.negative {
			badOption(n.option, n.value, "not below 0 (0: %s)", n.zero)
		}
	}
	if o.Duration > 0 && o.Rounds > 1 {
		badOption("rounds", o.Rounds, "with a duration: a duration run cycles through the prompts until the time is up, leave rounds out")
	}
	if o.Duration > 0 && o.Timeout > 0 && o.Duration >= o.Timeout {
		badOption("duration", o.Duration, "less than the run's timeout %s, which must leave the last requests time to finish", o.Timeout)
	}
	errs = append(errs, o.CheckRamp()...)
	return errs
}

// CheckRamp says what is wrong with the ramp options.
func (o Options) CheckRamp() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, optionError("ramp-from", o.RampFrom, format, args...))
	}
	if o.RampOver > 0 {
		target := float64(o.Concurrency)
		if o.Rate > 0 {
			target = o.Rate
		}
		if o.RampFrom < 0 || math.IsNaN(o.RampFrom) || math.IsInf(o.RampFrom, 0) || o.RampFrom > target {
			bad("between 0 and the target %g (the rate with a rate, else the concurrency)", target)
		}
		if o.Rate == 0 && o.RampFrom < 1 {
			bad("a concurrency ramp starts at 1 request in flight or more")
		}
	} else if o.RampFrom != 0 {
		bad("without a ramp time: give ramp over too")
	}
	return errs
}

// allowedAt is how many requests may be in flight at t into the measured
// phase: the concurrency, or under a concurrency ramp RampFrom rising
// linearly to it over RampOver (a whole number, at least 1).
func (o Options) allowedAt(t time.Duration) int {
	if o.RampOver <= 0 || o.Rate > 0 || t >= o.RampOver {
		return o.Concurrency
	}
	f := o.RampFrom + (float64(o.Concurrency)-o.RampFrom)*float64(t)/float64(o.RampOver)
	return max(1, min(o.Concurrency, int(f)))
}

// nextStep is when allowedAt next rises after t (RampOver past the ramp).
func (o Options) nextStep(t time.Duration) time.Duration {
	now := o.allowedAt(t)
	if now >= o.Concurrency || o.Concurrency <= int(o.RampFrom) {
		return o.RampOver
	}
	// allowedAt reaches now+1 when RampFrom + (C-RampFrom)·t/T >= now+1.
	frac := (float64(now+1) - o.RampFrom) / (float64(o.Concurrency) - o.RampFrom)
	at := time.Duration(math.Ceil(frac * float64(o.RampOver)))
	return max(at, t+time.Millisecond)
}

// workloadRecord adds to a record what the workload options made of the
// run: a duration run's limit (its request count is num_prompts), the
// ramp, and the warm-up requests, counted apart from the measured ones.
func (r *Result) workloadRecord(rec map[string]any) {
	o := r.Options
	if o.Duration > 0 {
		rec["duration_limit_s"] = o.Duration.Seconds()
	}
	if o.RampOver > 0 {
		rec["ramp_from"], rec["ramp_over_s"] = o.RampFrom, o.RampOver.Seconds()
	}
	if r.WarmupSent == nil {
		return
	}
	w := r.warmup
	if w == nil {
		w = tallyOf(r.Warmup, false)
	}
	rec["warmup_requests"], rec["warmup_failed"], rec["warmup_prompt_digest"] = w.requested, w.requested-w.completed, r.WarmupSent.String()
}

// cycle records a duration run's prompts once, in order: what its sent
// records must be a cyclic prefix of, and the digest two arms that sent
// different counts share.
func (c *client) cycle(res *Result) {
	if c.o.Duration <= 0 {
		return
	}
	b, _ := digest.NewBuilder(digest.DefaultFor(res.Unit), true)
	for _, p := range c.prompts {
		b.AddRecord(p.Record())
	}
	d, _ := b.Sum() // held in memory (records kept): Sum cannot fail
	res.Cycle, res.CycleRecords = &d, b.Records()
}
