package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/arms"
	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/scenarios"
)

// Schema names the evidence.json format.
const Schema = "abbench-evidence-v1"

// Evidence is what one arm run proves.
type Evidence struct {
	Schema        string            `json:"schema"`
	Scenario      string            `json:"scenario"`
	MatchedDigest string            `json:"matched_digest"`
	Arm           string            `json:"arm"`
	ArmEnv        map[string]string `json:"arm_env"`
	Token         string            `json:"token"`
	RunState      string            `json:"run_state"`
	Accepted      bool              `json:"accepted"`
	Reasons       []reason.Reason   `json:"reasons"`
	Criteria      []Criterion       `json:"criteria"`
	// Workload is the activation digest the ranks agree on.
	Workload   *digest.Digest `json:"workload_digest"`
	Throughput *Record        `json:"throughput"`
	Ranks      []RankFacts    `json:"ranks"`
	Configs    map[string]any `json:"configs,omitempty"`
}

// Activation is one rank's activation-sequence fact.
type Activation struct {
	Count     uint64 `json:"count"`
	Digest    string `json:"digest"`
	Algorithm string `json:"algorithm"`
}

// RankFacts are the facts of one rank's measured lifecycle.
type RankFacts struct {
	Role       string                       `json:"role"`
	Rank       int                          `json:"rank"`
	Scope      Scope                        `json:"scope"`
	BytesRead  int64                        `json:"bytes_read"`
	Measured   [2]int64                     `json:"measured"` // byte offsets of the measured lifecycle's first and last line
	Mode       map[string]string            `json:"mode,omitempty"`
	Activation *Activation                  `json:"activation,omitempty"`
	Counters   map[string]int64             `json:"counters,omitempty"`
	Facts      map[string]map[string]string `json:"facts,omitempty"`
}

// Criterion is one acceptance criterion, evaluated.
type Criterion struct {
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	OK     bool          `json:"ok"`
	Detail string        `json:"detail"`
	Codes  []reason.Code `json:"codes,omitempty"`
}

// Collect derives the evidence of the run whose attempt directory is dir
// (holding status.json). It reads only; it starts nothing.
func Collect(s *scenarios.Scenario, arm, dir string) (*Evidence, error) {
	data, err := os.ReadFile(filepath.Join(dir, "status.json"))
	if err != nil {
		return nil, fmt.Errorf("reading the run's status: %w", err)
	}
	var st arms.Status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "status.json"), err)
	}
	if st.Arm != arm {
		return nil, fmt.Errorf("%s is a run of arm %q, not %q", dir, st.Arm, arm)
	}
	e := &Evidence{Schema: Schema, Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: arm, ArmEnv: s.Arms[arm].Env,
		Token: st.Token, RunState: st.State, Reasons: []reason.Reason{}, Criteria: []Criterion{}}
	if st.MatchedDigest != e.MatchedDigest {
		e.reason(reason.New(reason.ConfigMismatch, "the run was made with matched digest %s, but this scenario's is %s", st.MatchedDigest, e.MatchedDigest))
	}
	for _, r := range st.Reasons {
		e.reason(r)
	}
	if st.State != arms.StateSucceeded && len(st.Reasons) == 0 {
		e.reason(reason.New(reason.RankExited, "the run ended %s", st.State))
	}
	c := collector{s: s, e: e, st: &st, dir: dir}
	c.ranks()
	c.throughput()
	c.criteria()
	e.Accepted = len(e.Reasons) == 0
	for _, cr := range e.Criteria {
		e.Accepted = e.Accepted && cr.OK
	}
	return e, nil
}

func (e *Evidence) reason(r reason.Reason) {
	if r.Arm == "" {
		r.Arm = e.Arm
	}
	e.Reasons = append(e.Reasons, r)
}

type collector struct {
	s   *scenarios.Scenario
	e   *Evidence
	st  *arms.Status
	dir string
}

// line is a match of one rule in a rank's scope.
type match struct {
	rule  string
	off   int64
	seq   int
	named map[string]string
}

type rankScan struct {
	facts   *RankFacts
	matches []match
}

// rules lists every rule that reads role's logs, by name.
func (c *collector) rules(role string) map[string]*regexp.Regexp {
	ev := c.s.Evidence
	out := map[string]*regexp.Regexp{}
	add := func(name string, r *scenarios.Rule) {
		if r != nil && r.Role == role {
			out[name] = regexp.MustCompile(r.Pattern)
		}
	}
	add("mode", ev.Mode)
	add("lifecycle_end", ev.LifecycleEnd)
	add("activation", ev.Activation)
	for name, ct := range ev.Counters {
		if ct.Role == role {
			out["counter:"+name] = regexp.MustCompile(ct.Pattern)
		}
	}
	for name, f := range ev.Extra {
		if f.Role == role {
			out["fact:"+name] = regexp.MustCompile(f.Pattern)
		}
	}
	return out
}

func (c *collector) ranks() {
	for _, role := range c.s.Roles {
		rules := c.rules(role.Name)
		if len(rules) == 0 {
			continue
		}
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range rules {
				if !yield(k) {
					return
				}
			}
		})
		var scans []*rankScan
		for rank := range role.Ranks {
			rs := c.rankStatus(role.Name, rank)
			if rs == nil {
				c.e.reason(reason.New(reason.RankMissing, "%s rank %d never started", role.Name, rank).At(c.e.Arm, role.Name, rank))
				continue
			}
			sc := &rankScan{facts: &RankFacts{Role: role.Name, Rank: rank, Scope: Scope{File: filepath.Join(c.dir, rs.Log), Offset: rs.Offset, Inode: rs.Inode}}}
			seq := 0
			n, err := sc.facts.Scope.Read(func(line []byte, off int64) {
				for _, name := range names {
					re := rules[name]
					m := re.FindSubmatch(line)
					if m == nil {
						continue
					}
					named := map[string]string{}
					for i, g := range re.SubexpNames() {
						if g != "" && m[i] != nil {
							named[g] = string(m[i])
						}
					}
					sc.matches = append(sc.matches, match{name, off, seq, named})
				}
				seq++
			}, nil)
			sc.facts.BytesRead = n
			if err != nil {
				if se, ok := err.(*StaleError); ok {
					c.e.reason(se.Reason().At(c.e.Arm, role.Name, rank))
				} else {
					c.e.reason(reason.New(reason.StaleEvidence, "reading %s: %v", sc.facts.Scope.File, err).At(c.e.Arm, role.Name, rank))
				}
				continue
			}
			scans = append(scans, sc)
		}
		c.phases(&role, scans)
		for _, sc := range scans {
			c.e.Ranks = append(c.e.Ranks, *sc.facts)
		}
	}
}

func (c *collector) rankStatus(role string, rank int) *arms.RankStatus {
	for i := range c.st.Ranks {
		if c.st.Ranks[i].Role == role && c.st.Ranks[i].Rank == rank {
			return &c.st.Ranks[i]
		}
	}
	return nil
}

func first(ms []match, rule string, after int) int {
	for _, m := range ms {
		if m.rule == rule && m.seq > after {
			return m.seq
		}
	}
	return -1
}

func missingRanks(scans []*rankScan, bad func(*rankScan) bool) string {
	var out []string
	for _, sc := range scans {
		if bad(sc) {
			out = append(out, strconv.Itoa(sc.facts.Rank))
		}
	}
	return strings.Join(out, ", ")
}

// phases finds each rank's measured lifecycle and takes its facts.
func (c *collector) phases(role *scenarios.Role, scans []*rankScan) {
	ev := c.s.Evidence
	hasMode := ev.Mode != nil && ev.Mode.Role == role.Name
	hasEnd := ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == role.Name
	start := map[*rankScan]int{}
	end := map[*rankScan]int{}
	profEnd := map[*rankScan]int{}
	for _, sc := range scans {
		profEnd[sc] = -1
		if ev.Profiling && hasEnd {
			profEnd[sc] = first(sc.matches, "lifecycle_end", -1)
		}
	}
	if ev.Profiling && hasEnd {
		if m := missingRanks(scans, func(sc *rankScan) bool { return profEnd[sc] < 0 }); m != "" {
			c.e.reason(reason.New(reason.PhaseIncomplete, "the profiling lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
			return
		}
	}
	for _, sc := range scans {
		start[sc] = profEnd[sc] + 1
		if hasMode {
			start[sc] = first(sc.matches, "mode", profEnd[sc])
		}
	}
	if m := missingRanks(scans, func(sc *rankScan) bool { return start[sc] < 0 }); m != "" {
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never started on rank(s) %s (no mode line after the profiling lifecycle)", role.Name, m))
		return
	}
	for _, sc := range scans {
		end[sc] = int(^uint(0) >> 1)
		if hasEnd {
			end[sc] = first(sc.matches, "lifecycle_end", start[sc]-1)
		}
	}
	if m := missingRanks(scans, func(sc *rankScan) bool { return end[sc] < 0 }); m != "" {
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
	}
	if hasMode && hasEnd {
		if m := missingRanks(scans, func(sc *rankScan) bool { return end[sc] >= 0 && first(sc.matches, "mode", end[sc]) >= 0 }); m != "" {
			c.e.reason(reason.New(reason.StaleEvidence, "the scoped logs of role %s, rank(s) %s, hold another lifecycle after the measured one: the scope spans more than one attempt", role.Name, m))
		}
	}
	for _, sc := range scans {
		lo, hi := start[sc], end[sc]
		if hi < 0 {
			hi = int(^uint(0) >> 1)
		}
		f := sc.facts
		f.Measured = [2]int64{-1, -1}
		for _, m := range sc.matches {
			if m.seq < lo || m.seq > hi {
				continue
			}
			if f.Measured[0] < 0 {
				f.Measured[0] = m.off
			}
			f.Measured[1] = m.off
			c.take(f, m)
		}
	}
}

// take records a match of the measured lifecycle as a fact; the last match
// of a rule wins, except the mode, which is the lifecycle's first line.
func (c *collector) take(f *RankFacts, m match) {
	switch {
	case m.rule == "mode":
		if f.Mode == nil {
			f.Mode = map[string]string{}
			for k, v := range m.named {
				if k != "rank" {
					f.Mode[k] = v
				}
			}
		}
	case m.rule == "activation":
		n, _ := strconv.ParseUint(m.named["count"], 10, 64)
		f.Activation = &Activation{Count: n, Digest: m.named["digest"], Algorithm: m.named["algorithm"]}
	case strings.HasPrefix(m.rule, "counter:"):
		name := strings.TrimPrefix(m.rule, "counter:")
		if f.Counters == nil {
			f.Counters = map[string]int64{}
		}
		if group := c.s.Evidence.Counters[name].Value; group != "" {
			v, err := strconv.ParseInt(m.named[group], 10, 64)
			if err == nil {
				f.Counters[name] = v
			}
		} else {
			f.Counters[name]++
		}
	case strings.HasPrefix(m.rule, "fact:"):
		if f.Facts == nil {
			f.Facts = map[string]map[string]string{}
		}
		f.Facts[strings.TrimPrefix(m.rule, "fact:")] = m.named
	}
}

func (c *collector) throughput() {
	t := c.s.Evidence.Throughput
	if t == nil {
		return
	}
	file, err := scenarios.Expand(t.File, scenarios.TemplateData{Out: c.dir, Arm: c.e.Arm, Token: c.e.Token, Dir: c.s.Dir})
	if err != nil {
		return
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(c.dir, file)
	}
	requested := c.s.Workload.Requests * c.s.Workload.Rounds
	rec, err := ParseRecord(file, t.Format, requested, t.Pattern)
	if err != nil {
		rec = newRecord(t.Format, file)
		rec.problem("no record: %v", err)
	}
	c.e.Throughput = rec
}

func (c *collector) factsOf(role string) []RankFacts {
	var out []RankFacts
	for _, f := range c.e.Ranks {
		if f.Role == role {
			out = append(out, f)
		}
	}
	return out
}
