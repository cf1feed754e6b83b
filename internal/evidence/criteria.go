package evidence

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/scenarios"
)

// criteria evaluates the scenario's acceptance criteria for this arm.
func (c *collector) criteria() {
	for i, cr := range c.s.Acceptance {
		kind := cr.Kind()
		res := Criterion{ID: fmt.Sprintf("%d-%s", i+1, kind), Kind: kind}
		if len(cr.Arms) > 0 && !slices.Contains(cr.Arms, c.e.Arm) {
			res.OK, res.Detail = true, "not applied to arm "+c.e.Arm
			c.e.Criteria = append(c.e.Criteria, res)
			continue
		}
		var fails []reason.Reason
		fail := func(r reason.Reason) { fails = append(fails, r) }
		switch kind {
		case "requests":
			res.Detail = c.requests(fail)
		case "throughput":
			res.Detail = c.validRecord(fail)
		case "record":
			res.Detail = c.toolVerdict(fail)
		case "mode":
			res.Detail = c.modes(fail)
		case "digest":
			res.Detail = c.digestAgree(fail)
		case "activation":
			res.Detail = c.activationCount(cr.Activation, fail)
		case "counter":
			res.Detail = c.counter(cr, fail)
		case "config":
			res.Detail = c.config(cr.Config, fail)
		case "clean_shutdown":
			res.Detail = c.cleanShutdown(fail)
		case "output_tokens":
			res.Detail = c.outputTokens(cr, fail)
		case "server_metric":
			res.Detail = c.serverMetric(res.ID, cr, fail)
		}
		res.OK = len(fails) == 0
		for _, f := range fails {
			if !slices.Contains(res.Codes, f.Code) {
				res.Codes = append(res.Codes, f.Code)
			}
			c.e.reason(f)
		}
		if !res.OK {
			var parts []string
			for _, f := range fails {
				parts = append(parts, f.Detail)
			}
			res.Detail = strings.Join(parts, "; ")
		}
		res.Detail = redact.URL(res.Detail)
		c.e.Criteria = append(c.e.Criteria, res)
	}
}

func (c *collector) requests(fail func(reason.Reason)) string {
	r := c.e.Throughput
	want := c.s.Workload.Total()
	if r != nil && r.Unreadable {
		// Nothing is known to have failed: abbench could not read the
		// record, and that is the cause to name.
		fail(reason.New(reason.ThroughputInvalid, "%s record %s cannot be read, so it cannot show that every one of its %s succeeded: %s", r.Format, filepath.Base(r.File), r.WorkUnit(), r.Problems[0]))
		return ""
	}
	if r != nil && r.WorkUnit() != records.UnitRequests {
		return c.ownUnits(r, fail)
	}
	if want == 0 && r != nil {
		// requests: from-record: the client decided how many; every one
		// it attempted must have succeeded, as its record says.
		switch {
		case r.Completed < 0:
			fail(reason.New(reason.RequestsFailed, "the record does not say how many requests completed"))
		case r.Failed < 0 && r.Requested < 0:
			fail(reason.New(reason.RequestsFailed, "the record says %d requests completed, but neither how many it attempted nor how many failed (workload.requests is from-record)", r.Completed))
		case r.Failed > 0 || r.Requested >= 0 && r.Completed < r.Requested:
			fail(reason.New(reason.RequestsFailed, "%d of %d attempted requests succeeded (%d failed)%s", r.Completed, max(r.Requested, r.Completed+r.Failed), max(r.Failed, r.Requested-r.Completed), firstOf(r)))
		default:
			return fmt.Sprintf("%d/%d attempted requests succeeded (the client decided how many)", r.Completed, max(r.Requested, r.Completed))
		}
		return ""
	}
	switch {
	case r == nil:
		fail(reason.New(reason.RequestsFailed, "no throughput record says how many requests succeeded"))
	case r.Completed < 0:
		fail(reason.New(reason.RequestsFailed, "the record does not say how many requests completed"))
	case r.Failed > 0 || r.Completed < want:
		fail(reason.New(reason.RequestsFailed, "%d of %d requests succeeded (%d failed)%s", r.Completed, want, max(r.Failed, want-r.Completed), firstOf(r)))
	default:
		return fmt.Sprintf("%d/%d requests succeeded", r.Completed, want)
	}
	return ""
}

// firstOf is the record's first failed request, as a reason's tail.
func firstOf(r *records.Record) string {
	if r.FirstFailure == "" {
		return ""
	}
	return "; the first: " + r.FirstFailure
}

// ownUnits holds a record that counts work other than requests (queries,
// runs, jobs, sizes) to its own counts: every unit it attempted succeeded.
func (c *collector) ownUnits(r *Record, fail func(reason.Reason)) string {
	switch {
	case r.Failed > 0:
		fail(reason.New(reason.RequestsFailed, "%s record %s: %d of %d %s failed", r.Format, filepath.Base(r.File), r.Failed, max(r.Requested, r.Completed+r.Failed), r.WorkUnit()))
	case r.Completed < 0 && r.Failed < 0:
		fail(reason.New(reason.RequestsFailed, "%s record %s says neither how many %s completed nor how many failed", r.Format, filepath.Base(r.File), r.WorkUnit()))
	case r.Requested >= 0 && r.Completed >= 0 && r.Completed < r.Requested:
		fail(reason.New(reason.RequestsFailed, "%s record %s: %d of %d %s completed", r.Format, filepath.Base(r.File), r.Completed, r.Requested, r.WorkUnit()))
	case r.Completed >= 0:
		return fmt.Sprintf("%d %s, none failed", r.Completed, r.WorkUnit())
	default:
		return fmt.Sprintf("no %s failed", r.WorkUnit())
	}
	return ""
}

func (c *collector) validRecord(fail func(reason.Reason)) string {
	r := c.e.Throughput
	if r == nil {
		fail(reason.New(reason.ThroughputInvalid, "no throughput record"))
		return ""
	}
	if !r.Valid {
		fail(reason.New(reason.ThroughputInvalid, "%s record %s: %s", r.Format, filepath.Base(r.File), strings.Join(r.Problems, "; ")))
		return ""
	}
	if v, ok := r.Metrics[scenarios.DefaultMetric]; ok {
		return fmt.Sprintf("%s record valid, output %.1f tok/s", r.Format, v)
	}
	return fmt.Sprintf("%s record valid, %s %s", r.Format, c.e.HeadlineMetric, numfmt.Value(r.Metrics[c.e.HeadlineMetric]))
}

// modes holds every rank of each mode rule's role to the arm's mode.
func (c *collector) modes(fail func(reason.Reason)) string {
	rules := c.s.Evidence.Mode
	var said []string
	for _, m := range rules {
		said = append(said, c.roleModes(m.Role, fail))
	}
	return strings.Join(said, "; ")
}

// roleModes holds every rank of role to the arm's mode.
func (c *collector) roleModes(roleName string, fail func(reason.Reason)) string {
	facts := c.factsOf(roleName)
	role := c.s.Role(roleName)
	if len(facts) < role.Ranks {
		r := reason.New(reason.ArmModeMismatch, "only %d of %d %s ranks have a measured mode", len(facts), role.Ranks, roleName)
		r.Arm, r.Role = c.e.Arm, roleName // no rank: the role's (rules 7)
		fail(r)
	}
	want := c.s.Arms[c.e.Arm].Env
	for _, f := range facts {
		if f.Mode == nil {
			fail(reason.New(reason.ArmModeMismatch, "%s rank %d logged no mode line in its measured lifecycle", f.Role, f.Rank).At(c.e.Arm, f.Role, f.Rank))
			continue
		}
		for k, v := range f.Mode {
			if w, ok := want[k]; ok && v != w {
				fail(reason.New(reason.ArmModeMismatch, "%s rank %d ran %s=%s, but arm %s sets %q", f.Role, f.Rank, k, v, c.e.Arm, w).At(c.e.Arm, f.Role, f.Rank))
			}
		}
	}
	return fmt.Sprintf("all %d %s ranks ran the arm's mode", len(facts), roleName)
}

func (c *collector) digestAgree(fail func(reason.Reason)) string {
	a := c.s.Evidence.Activation
	if a == nil {
		return c.sentOnly(fail) // validation allows it only with an openai client
	}
	facts := c.factsOf(a.Role)
	role := c.s.Role(a.Role)
	var agreed *Activation
	agree := true
	for _, f := range facts {
		if f.Activation == nil {
			fail(reason.New(reason.DigestMissing, "%s rank %d reported no activation digest in its measured lifecycle", f.Role, f.Rank).At(c.e.Arm, f.Role, f.Rank))
			agree = false
			continue
		}
		if _, err := digest.ParseAlgorithm(f.Activation.Algorithm); err != nil {
			fail(reason.New(reason.DigestAlgorithm, "%s rank %d: %v", f.Role, f.Rank, err).At(c.e.Arm, f.Role, f.Rank))
			agree = false
			continue
		}
		if agreed == nil {
			agreed = f.Activation
		} else if *f.Activation != *agreed {
			fail(reason.New(reason.DigestRankDisagreement, "%s rank %d activated %d prompts with digest %s, rank %d %d with %s",
				f.Role, f.Rank, f.Activation.Count, short(f.Activation.Digest), facts[0].Rank, agreed.Count, short(agreed.Digest)).At(c.e.Arm, f.Role, f.Rank))
			agree = false
		}
	}
	if len(facts) < role.Ranks {
		fail(reason.New(reason.DigestMissing, "only %d of %d %s ranks were read", len(facts), role.Ranks, a.Role))
		agree = false
	}
	if agree && agreed != nil {
		d, err := digest.New(agreed.Algorithm, agreed.Count, agreed.Digest)
		if err != nil {
			fail(reason.New(reason.DigestAlgorithm, "the agreed digest is malformed: %v", err))
			return ""
		}
		c.e.Workload = &d
		c.servedIsDeclared(d, "the ranks served", fail)
		if c.s.OpenAIRole() != nil {
			c.sentIsServed(d, facts, fail)
			return fmt.Sprintf("%d %s ranks agree on %s, the prompts the client sent", len(facts), a.Role, d)
		}
		return fmt.Sprintf("%d %s ranks agree on %s", len(facts), a.Role, d)
	}
	return ""
}

// servedIsDeclared censors a run whose ranks served every prompt of the
// workload but not the declared prompts: both arms could serve the same
// wrong workload (a fault in the shared environment) and still agree with
// each other. It applies when the activation digest uses the algorithm of
// the prompts file's digest and counts as many prompts: only then are the
// two digests of the same thing.
func (c *collector) servedIsDeclared(served digest.Digest, who string, fail func(reason.Reason)) {
	declared := c.s.PromptsDigest
	if served.Algorithm != declared.Algorithm || served.Count != declared.Count || served == declared {
		return
	}
	fail(reason.New(reason.WorkloadMismatch, "%s %s, but the declared prompts file digests to %s: the served workload is not the declared one (explain it: abbench digest --records declared.records PROMPTS, then abbench digest --explain declared.records with a rank's activation records)", who, served, declared))
}

func short(hex string) string {
	if len(hex) > 12 {
		return hex[:12]
	}
	return hex
}

func (c *collector) activationCount(expr string, fail func(reason.Reason)) string {
	want, _ := c.s.Workload.EvalExpr(expr)
	a := c.s.Evidence.Activation
	for _, f := range c.factsOf(a.Role) {
		if f.Activation == nil {
			fail(reason.New(reason.DigestMissing, "%s rank %d reported no activation count", f.Role, f.Rank).At(c.e.Arm, f.Role, f.Rank))
		} else if int64(f.Activation.Count) != want {
			fail(reason.New(reason.FactCount, "%s rank %d: %d/%d activations", f.Role, f.Rank, f.Activation.Count, want).At(c.e.Arm, f.Role, f.Rank))
		}
	}
	return fmt.Sprintf("every %s rank activated %d (%s)", a.Role, want, expr)
}

func (c *collector) counter(cr scenarios.Criterion, fail func(reason.Reason)) string {
	want, _ := c.s.Workload.EvalExpr(cr.Equals)
	role := cr.Role
	if role == "" {
		role = c.s.Evidence.Counters[cr.Counter].Role
	}
	facts := c.factsOf(role)
	if len(facts) == 0 {
		fail(reason.New(reason.FactCount, "no %s rank was read for counter %s", role, cr.Counter))
	}
	for _, f := range facts {
		v, ok := f.Counters[cr.Counter]
		switch {
		case !ok:
			fail(reason.New(reason.FactCount, "%s rank %d: no %s in its measured lifecycle", f.Role, f.Rank, cr.Counter).At(c.e.Arm, f.Role, f.Rank))
		case v != want:
			fail(reason.New(reason.FactCount, "%s rank %d: %d/%d %s", f.Role, f.Rank, v, want, strings.ReplaceAll(cr.Counter, "_", " ")).At(c.e.Arm, f.Role, f.Rank))
		}
	}
	return fmt.Sprintf("%s = %d (%s) on every %s rank", cr.Counter, want, cr.Equals, role)
}

func (c *collector) config(name string, fail func(reason.Reason)) string {
	var cf scenarios.ConfigFact
	for _, f := range c.s.Evidence.Configs {
		if f.Name == name {
			cf = f
		}
	}
	role := c.s.Role(cf.Role)
	if c.e.Configs == nil {
		c.e.Configs = map[string]any{}
	}
	for rank := range role.Ranks {
		expanded, err := scenarios.Expand(cf.File, c.data(role, rank))
		if err != nil {
			fail(reason.New(reason.ConfigMismatch, "config %s: %v", name, err))
			return ""
		}
		file, data, err := c.readLocal(expanded)
		var got any
		if err == nil {
			c.input(file)
			got, err = valueAt(data, file, cf.Path)
		}
		if err != nil {
			fail(reason.New(reason.ConfigMismatch, "config %s of %s rank %d: %v", name, role.Name, rank, err).At(c.e.Arm, role.Name, rank))
			continue
		}
		recorded := got
		if s, ok := got.(string); ok {
			recorded = redact.URL(s)
		}
		c.e.Configs[fmt.Sprintf("%s/%s-%d", name, role.Name, rank)] = recorded
		if fmt.Sprint(got) != cf.Equals {
			fail(reason.New(reason.ConfigMismatch, "%s rank %d rendered %s = %v in %s, want %q", role.Name, rank, cf.Path, got, filepath.Base(file), cf.Equals).At(c.e.Arm, role.Name, rank))
		}
	}
	return fmt.Sprintf("%s = %q in every %s rank's config", cf.Path, cf.Equals, role.Name)
}

// valueAt reads a YAML or JSON file and returns the value at a dotted path
// (list indexes as numbers).
func valueAt(data []byte, file, path string) (any, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s does not parse as YAML or JSON: %v", filepath.Base(file), err)
	}
	cur := doc
	for _, key := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[key]
			if !ok {
				return nil, fmt.Errorf("%s has no key %q (path %s): the setting was not rendered", filepath.Base(file), key, path)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(v) {
				return nil, fmt.Errorf("%s: %q is not an index of a list of %d (path %s)", filepath.Base(file), key, len(v), path)
			}
			cur = v[i]
		default:
			return nil, fmt.Errorf("%s: path %s goes through a scalar at %q", filepath.Base(file), path, key)
		}
	}
	return cur, nil
}

func (c *collector) cleanShutdown(fail func(reason.Reason)) string {
	unclean := 0
	for _, r := range c.st.Reasons {
		if r.Code == reason.UncleanShutdown || r.Code == reason.RankExited {
			unclean++
		}
	}
	if unclean > 0 {
		fail(reason.New(reason.UncleanShutdown, "%d rank(s) did not shut down cleanly (see the run's reasons)", unclean))
		return ""
	}
	if c.st.State != "succeeded" {
		if len(c.st.Reasons) > 0 {
			// abbench stopped the run on purpose, for a reason already
			// reported, and every rank then ended cleanly: no second cause.
			return fmt.Sprintf("all %d ranks shut down cleanly after abbench stopped the run (%s)", len(c.st.Ranks), c.st.Reasons[0].Code)
		}
		fail(reason.New(reason.UncleanShutdown, "the run ended %s", c.st.State))
		return ""
	}
	return fmt.Sprintf("all %d ranks shut down cleanly", len(c.st.Ranks))
}
