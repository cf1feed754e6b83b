package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
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
	// Arms are every arm of the scenario, so a comparison can say which is missing.
	Arms []string `json:"arms"`
	// Baseline is the scenario's baseline arm.
	Baseline string `json:"baseline"`
	// NoiseThreshold is the scenario's noise threshold in percent.
	NoiseThreshold float64 `json:"noise_threshold_pct"`
	// HeadlineMetric is the record metric compared by default.
	HeadlineMetric string `json:"headline_metric,omitempty"`
	// HigherIsBetter is the scenario's declared direction of the headline
	// metric (throughput.higher_is_better); nil when it declares none.
	HigherIsBetter *bool           `json:"higher_is_better,omitempty"`
	Token          string          `json:"token"`
	RunState       string          `json:"run_state"`
	Accepted       bool            `json:"accepted"`
	Reasons        []reason.Reason `json:"reasons"`
	Criteria       []Criterion     `json:"criteria"`
	// Workload is the activation digest the ranks agree on.
	Workload   *digest.Digest `json:"workload_digest"`
	Throughput *Record        `json:"throughput"`
	Ranks      []RankFacts    `json:"ranks"`
	Configs    map[string]any `json:"configs,omitempty"`
	// Inputs are the files besides the logs the evidence was derived from
	// (the record, activation records, configs), relative to the run directory.
	Inputs []string `json:"inputs"`
	// Build is the arm's build, hashed when the run started, when the arms
	// are builds.
	Build *rundir.BuildFact `json:"build,omitempty"`
}

// Activation is one rank's activation-sequence fact.
type Activation struct {
	Count     uint64 `json:"count"`
	Digest    string `json:"digest"`
	Algorithm string `json:"algorithm"`
}

// RankFacts are the facts of one rank's measured lifecycle.
type RankFacts struct {
	Role       string            `json:"role"`
	Rank       int               `json:"rank"`
	Scope      Scope             `json:"scope"`
	BytesRead  int64             `json:"bytes_read"`
	Measured   [2]int64          `json:"measured"` // byte offsets of the measured lifecycle's first and last line
	Mode       map[string]string `json:"mode,omitempty"`
	Activation *Activation       `json:"activation,omitempty"`
	// ActivationRecords is the rank's per-prompt records file, relative to
	// the run directory, when the scenario names one and it exists.
	ActivationRecords string                       `json:"activation_records,omitempty"`
	Counters          map[string]int64             `json:"counters,omitempty"`
	Facts             map[string]map[string]string `json:"facts,omitempty"`
}

// Criterion is one acceptance criterion, evaluated.
type Criterion struct {
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	OK     bool          `json:"ok"`
	Detail string        `json:"detail"`
	Codes  []reason.Code `json:"codes,omitempty"`
}

// Options change where Collect reads.
type Options struct {
	// ScopedLogs says each log in dir holds only its scoped bytes (as in a
	// bundle): it is read from its start, while the facts still name the
	// original offsets.
	ScopedLogs bool
	// Unreadable maps a log (relative to the run directory) to why its
	// scope could not be read originally; with ScopedLogs, such a log is
	// reported as it was then.
	Unreadable map[string]string
}

// Collect derives the evidence of the run whose attempt directory is dir
// (holding status.json). It reads only; it starts nothing.
func Collect(s *scenarios.Scenario, arm, dir string) (*Evidence, error) {
	return CollectWith(s, arm, dir, Options{})
}

// CollectWith is Collect with options.
func CollectWith(s *scenarios.Scenario, arm, dir string, opts Options) (*Evidence, error) {
	stp, err := rundir.ReadStatus(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the run's status: %w", err)
	}
	st := *stp
	if st.Arm != arm {
		return nil, fmt.Errorf("%s is a run of arm %q, not %q", dir, st.Arm, arm)
	}
	e := &Evidence{Schema: Schema, Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: arm, ArmEnv: s.Arms[arm].Env,
		Arms: s.ArmOrder, Baseline: s.Baseline, NoiseThreshold: s.NoiseThreshold,
		Token: st.Token, RunState: st.State, Reasons: []reason.Reason{}, Criteria: []Criterion{}, Inputs: []string{}}
	if st.MatchedDigest != e.MatchedDigest {
		e.reason(reason.New(reason.ConfigMismatch, "the run was made with matched digest %s, but this scenario's is %s", st.MatchedDigest, e.MatchedDigest))
	}
	for _, r := range st.Reasons {
		e.reason(r)
	}
	for _, b := range st.Builds {
		if b.Arm == arm {
			e.Build = &b
		}
	}
	if s.HasBuilds() && e.Build == nil {
		e.reason(reason.New(reason.BuildMismatch, "the arms are builds, but the run recorded no build of arm %s: nothing says what it ran", arm))
	}
	if st.State != rundir.StateSucceeded && len(st.Reasons) == 0 {
		e.reason(reason.New(reason.RankExited, "the run ended %s", st.State))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer readonly.Close(root)
	c := collector{s: s, e: e, st: &st, dir: dir, opts: opts, root: root}
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
	r.Detail = redact.URL(r.Detail)
	e.Reasons = append(e.Reasons, r)
}

type collector struct {
	s    *scenarios.Scenario
	e    *Evidence
	st   *rundir.Status
	dir  string
	root *os.Root // the run directory: every evidence file is read through it
	opts Options
}

// data is the template data of role's rank (nil: the whole run), with the
// host the rank registered from, as the controller expanded it.
func (c *collector) data(role *scenarios.Role, rank int) scenarios.TemplateData {
	host := ""
	if role != nil {
		if reg, ok, _ := rundir.ReadRegistration(rundir.Coord(c.dir), role.Name, rank); ok {
			host = reg.Host
		}
	}
	return c.s.TemplateData(scenarios.Place{Arm: c.e.Arm, Token: c.e.Token, Out: c.dir, Role: role, Rank: rank, Host: host,
		Ports: scenarios.RecordedPorts(filepath.Join(rundir.Coord(c.dir), rundir.PortsFile))})
}

// input notes a file the evidence was derived from (relative to the run
// directory), so a bundle can carry it.
func (c *collector) input(rel string) {
	if !slices.Contains(c.e.Inputs, rel) {
		c.e.Inputs = append(c.e.Inputs, rel)
	}
}

// rel is path relative to the run directory when it is inside it.
// local is the path of an evidence file inside the run directory, or an
// error: evidence is read only from the run's own files, so a stale record
// elsewhere (an absolute path, ../) can never stand in for one the run wrote.
func (c *collector) local(file string) (string, error) {
	rel := file
	if filepath.IsAbs(file) {
		r, err := filepath.Rel(c.dir, file)
		if err != nil {
			return file, err
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return file, fmt.Errorf("%s is outside the run directory: evidence is read only from the run's own files", file)
	}
	return rel, nil
}

// readLocal reads an evidence file through the run directory's root, and
// never through a symbolic link (package guarded): nothing leads outside it.
func (c *collector) readLocal(file string) (rel string, data []byte, err error) {
	rel, err = c.local(file)
	if err != nil {
		return rel, nil, err
	}
	data, err = guarded.ReadFile(c.root, rel)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The same words as a plain open: a reason's text is part of the
		// evidence a bundle re-derives, whichever way the file was read.
		err = &fs.PathError{Op: "open", Path: rel, Err: pe.Err}
	}
	return rel, data, err
}

// rule is one pattern applied to a role's lines, with a literal every
// match must contain, so most lines are rejected by a fast substring search
// before the regular expression runs.
type rule struct {
	name    string
	re      *regexp.Regexp
	literal []byte
	// countOnly rules (a counter without a value group) need no groups:
	// whether a line matches is all, found without building them.
	countOnly bool
}

// matchedOnly is the groups of a count-only rule's match: none, but not nil.
var matchedOnly = map[string]string{}

func newRule(name, pattern string) rule {
	re := regexp.MustCompile(pattern)
	return rule{name: name, re: re, literal: requiredLiteral(pattern)}
}

// requiredLiteral is the longest literal a match of pattern must contain
// (a literal of its top-level concatenation), or nil.
func requiredLiteral(pattern string) []byte {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	tree = tree.Simplify()
	var best []rune
	consider := func(n *syntax.Regexp) {
		if n.Op == syntax.OpLiteral && n.Flags&syntax.FoldCase == 0 && len(n.Rune) > len(best) {
			best = n.Rune
		}
	}
	switch tree.Op {
	case syntax.OpConcat:
		for _, sub := range tree.Sub {
			consider(sub)
		}
	default:
		consider(tree)
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// anchor is one byte the block search stops at, and the rule needles
// that start with it: one pass of IndexByte (memory speed) per anchor,
// however many rules share it.
type anchor struct {
	b       byte
	needles [][]byte
}

// planAnchors picks, for each rule's required literal, a needle: the part
// of the literal from a byte that seldom occurs in this log (judged on a
// sample), so the search seldom stops in vain. Every line holding the
// literal holds its needle too. Rules share an anchor byte where another
// pass would cost more than the extra stops: a pass over a block costs
// about as much as stopping at one byte in 600 (IndexByte runs at memory
// speed; each stop compares a needle).
func planAnchors(rules []rule, sample []byte) []anchor {
	sample = sample[:min(len(sample), 64<<10)]
	var freq [256]int
	for _, b := range sample {
		freq[b]++
	}
	passCost := len(sample)/600 + 1
	var out []anchor
	find := func(b byte) int {
		return slices.IndexFunc(out, func(a anchor) bool { return a.b == b })
	}
	for _, r := range rules {
		lit := r.literal
		best, bestCost := -1, 0
		for i := range lit {
			if len(lit)-i < min(len(lit), 4) {
				break
			}
			cost := freq[lit[i]]
			if find(lit[i]) < 0 {
				cost += passCost
			}
			if best < 0 || cost < bestCost {
				best, bestCost = i, cost
			}
		}
		needle := lit[best:]
		k := find(needle[0])
		if k < 0 {
			out = append(out, anchor{b: needle[0]})
			k = len(out) - 1
		}
		if !slices.ContainsFunc(out[k].needles, func(n []byte) bool { return bytes.Equal(n, needle) }) {
			out[k].needles = append(out[k].needles, needle)
		}
	}
	return out
}

// anchorPlan is a role's anchors, planned once from the first block any
// of its ranks reads: the ranks of a role write alike.
type anchorPlan struct {
	once sync.Once
	plan []anchor
}

func (p *anchorPlan) anchors(rules []rule, sample []byte) []anchor {
	p.once.Do(func() { p.plan = planAnchors(rules, sample) })
	return p.plan
}

// lineStarts appends the start of every line of block that holds a needle
// of the anchors, unsorted.
func lineStarts(starts []int, block []byte, anchors []anchor) []int {
	for _, a := range anchors {
		for i := 0; i < len(block); {
			j := bytes.IndexByte(block[i:], a.b)
			if j < 0 {
				break
			}
			pos := i + j
			if !slices.ContainsFunc(a.needles, func(n []byte) bool { return bytes.HasPrefix(block[pos:], n) }) {
				i = pos + 1
				continue
			}
			starts = append(starts, bytes.LastIndexByte(block[:pos], '\n')+1)
			e := bytes.IndexByte(block[pos:], '\n')
			if e < 0 {
				break
			}
			i = pos + e + 1
		}
	}
	return starts
}

// rules lists every rule that reads role's logs, sorted by name.
func (c *collector) rules(role string) []rule {
	var out []rule
	for _, lr := range c.s.RulesFor(role) {
		r := newRule(lr.Name, lr.Pattern)
		r.countOnly = lr.CountOnly
		out = append(out, r)
	}
	return out
}

// The lifecycle phases of one rank's scope, in order.
const (
	inProfiling   = iota // before the first lifecycle-end line
	awaitingMode         // profiling ended; the measured lifecycle starts at the next mode line
	inMeasured           // facts count here, through the next lifecycle-end line
	afterMeasured        // a further mode line here means another attempt is in scope
)

// rankScan reads one rank's scope in a single pass, in constant memory:
// the measured lifecycle of a rank depends only on its own lines; whether
// the sets are complete is checked across ranks afterwards.
type rankScan struct {
	facts                     *RankFacts
	phase                     int
	profEnded, started, ended bool
	anotherLifecycle          bool
	err                       error
}

// hit is a line that rules matched, at off (as read): each rule's groups
// (nil: no match; matchedOnly: a count-only match). A run of lines that
// only count-only rules matched is one hit with counts per rule, from off
// through last, so a part of a scope searched ahead of its turn holds
// little.
type hit struct {
	off, last int64
	matched   []map[string]string
	counts    []int64
}

// matchLine is every rule's match of line, or nil when none matched.
func matchLine(rules []rule, line []byte, matched []map[string]string) []map[string]string {
	hit := false
	for i, r := range rules {
		matched[i] = nil
		if r.literal != nil && !bytes.Contains(line, r.literal) {
			continue
		}
		if r.countOnly {
			if r.re.Match(line) {
				matched[i], hit = matchedOnly, true
			}
			continue
		}
		m := r.re.FindSubmatch(line)
		if m == nil {
			continue
		}
		named := map[string]string{}
		for j, g := range r.re.SubexpNames() {
			if g != "" && m[j] != nil {
				named[g] = string(m[j])
			}
		}
		matched[i], hit = named, true
	}
	if !hit {
		return nil
	}
	return matched
}

// searcher finds a role's matching lines in blocks of its logs.
type searcher struct {
	rules   []rule
	plan    *anchorPlan
	literal bool // every rule has a required literal: search blocks for them
	starts  []int
	matched []map[string]string
}

func newSearcher(rules []rule, plan *anchorPlan) *searcher {
	s := &searcher{rules: rules, plan: plan, literal: true, matched: make([]map[string]string, len(rules))}
	for _, r := range rules {
		s.literal = s.literal && r.literal != nil
	}
	return s
}

// block calls emit with every matching line of block, in file order; the
// matches are valid during the call.
func (s *searcher) block(block []byte, off int64, emit func(matched []map[string]string, off int64)) {
	if !s.literal {
		eachLine(block, off, func(l []byte, off int64) {
			if m := matchLine(s.rules, l, s.matched); m != nil {
				emit(m, off)
			}
		})
		return
	}
	// Search the whole block for the rules' literals, as grep tools do,
	// and visit only the lines that hold one, in file order.
	s.starts = lineStarts(s.starts[:0], block, s.plan.anchors(s.rules, block))
	slices.Sort(s.starts)
	s.starts = slices.Compact(s.starts)
	for _, ls := range s.starts {
		le := bytes.IndexByte(block[ls:], '\n')
		if le < 0 {
			le = len(block) - ls
		}
		if m := matchLine(s.rules, block[ls:ls+le], s.matched); m != nil {
			emit(m, off+int64(ls))
		}
	}
}

// minPart is the least a scope is split into for reading on several
// cores: each part's reader may read up to a block past its end, so parts
// this large keep the bytes read within 1% of the scope. (A variable, so a
// test can split small logs.)
var minPart int64 = 32 << 20

// partsPerScope is how many parts each of jobs scopes is read in: the
// cores left over when there are fewer scopes than cores.
var partsPerScope = func(jobs int) int { return max(1, runtime.GOMAXPROCS(0)/max(jobs, 1)) }

func (c *collector) scanRank(role *scenarios.Role, rules []rule, plan *anchorPlan, sc *rankScan, parts int) {
	ev := c.s.Evidence
	hasMode := ev.Mode != nil && ev.Mode.Role == role.Name
	hasEnd := ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == role.Name
	switch {
	case ev.Profiling && hasEnd:
		sc.phase = inProfiling
	case hasMode:
		sc.phase = awaitingMode
	default:
		sc.phase, sc.started = inMeasured, true
	}
	f := sc.facts
	f.Measured = [2]int64{-1, -1}
	rel, err := c.local(f.Scope.File)
	if err != nil {
		sc.err = &StaleError{f.Scope, "the log is outside the run directory: evidence is read only from the run's own files"}
		return
	}
	read := Scope{File: rel, Offset: f.Scope.Offset, Inode: f.Scope.Inode}.In(c.root)
	shift := int64(0) // what to add to an offset read to give the original one
	if c.opts.ScopedLogs {
		read.Offset, read.Inode, shift = 0, 0, f.Scope.Offset
	}
	if why, ok := c.opts.Unreadable[f.Scope.File]; ok && c.opts.ScopedLogs {
		sc.err = &StaleError{f.Scope, why}
		return
	}
	is := func(matched []map[string]string, name string) bool {
		for i, r := range rules {
			if r.name == name && matched[i] != nil {
				return true
			}
		}
		return false
	}
	// apply moves the rank's lifecycle along a matching line, and records
	// the facts of the measured one.
	apply := func(h hit) {
		if h.counts != nil { // count-only lines: they move no phase
			if sc.phase != inMeasured {
				return
			}
			if f.Measured[0] < 0 {
				f.Measured[0] = h.off + shift
			}
			f.Measured[1] = h.last + shift
			for i, n := range h.counts {
				if n > 0 {
					c.count(f, rules[i].name, n)
				}
			}
			return
		}
		switch sc.phase {
		case inProfiling:
			if is(h.matched, "lifecycle_end") {
				sc.phase, sc.profEnded = awaitingMode, true
			}
			return
		case awaitingMode:
			if !is(h.matched, "mode") {
				return
			}
			sc.phase, sc.started = inMeasured, true
		case afterMeasured:
			if is(h.matched, "mode") {
				sc.anotherLifecycle = true
			}
			return
		}
		if f.Measured[0] < 0 {
			f.Measured[0] = h.off + shift
		}
		f.Measured[1] = h.off + shift
		for i, r := range rules {
			if h.matched[i] != nil {
				c.take(f, r.name, h.matched[i])
			}
		}
		if hasEnd && is(h.matched, "lifecycle_end") {
			sc.phase, sc.ended = afterMeasured, true
		}
	}
	var size int64
	if st, err := c.root.Lstat(rel); err == nil {
		size = st.Size() - read.Offset
	}
	parts = int(min(int64(parts), size/minPart))
	if parts <= 1 {
		srch := newSearcher(rules, plan)
		f.BytesRead, sc.err = read.ReadBlocks(func(block []byte, off int64) {
			srch.block(block, off, func(m []map[string]string, off int64) { apply(hit{off: off, matched: m}) })
		}, nil)
	} else {
		f.BytesRead, sc.err = c.scanParts(read, size, parts, rules, plan, apply)
	}
	if se, ok := sc.err.(*StaleError); ok {
		se.Scope = f.Scope // name the log as the run directory does
	}
	if !hasEnd {
		sc.ended = true
	}
}

// scanParts reads a large scope as parts on several cores: each part's
// reader searches the lines that start in it (from a byte before it, to
// see where its first line starts; through the line that crosses its end)
// and keeps its hits; the parts' hits are applied in file order, each part
// as soon as those before it are.
func (c *collector) scanParts(read Scope, size int64, parts int, rules []rule, plan *anchorPlan, apply func(hit)) (int64, error) {
	type part struct {
		hits []hit
		n    int64
		err  error
		done chan struct{}
	}
	ps := make([]*part, parts)
	bound := func(k int) int64 { return read.Offset + size*int64(k)/int64(parts) }
	for k := range ps {
		p := &part{done: make(chan struct{})}
		ps[k] = p
		go func() {
			defer close(p.done)
			from, to := bound(k), bound(k+1)
			sub := read
			if k > 0 {
				sub.Offset = from - 1
			}
			srch := newSearcher(rules, plan)
			p.n, p.err = sub.readBlocks(func(block []byte, off int64) bool {
				if k < parts-1 && off >= to {
					return false
				}
				srch.block(block, off, func(m []map[string]string, off int64) {
					if (k > 0 && off < from) || (k < parts-1 && off >= to) {
						return
					}
					countOnly := true
					for i, g := range m {
						countOnly = countOnly && (g == nil || rules[i].countOnly)
					}
					if !countOnly {
						p.hits = append(p.hits, hit{off: off, matched: slices.Clone(m)})
						return
					}
					if last := len(p.hits) - 1; last < 0 || p.hits[last].counts == nil {
						p.hits = append(p.hits, hit{off: off, counts: make([]int64, len(m))})
					}
					h := &p.hits[len(p.hits)-1]
					h.last = off
					for i, g := range m {
						if g != nil {
							h.counts[i]++
						}
					}
				})
				return true
			}, nil)
		}()
	}
	var total int64
	var first error
	for _, p := range ps {
		<-p.done
		total += p.n
		if first == nil && p.err != nil {
			first = p.err
		}
		if first == nil {
			for _, h := range p.hits {
				apply(h)
			}
		}
		p.hits = nil
	}
	return total, first
}

func (c *collector) ranks() {
	type job struct {
		role  *scenarios.Role
		rules []rule
		plan  *anchorPlan
		scan  *rankScan
	}
	var jobs []job
	byRole := map[string][]*rankScan{}
	for i := range c.s.Roles {
		role := &c.s.Roles[i]
		rules := c.rules(role.Name)
		if len(rules) == 0 {
			continue
		}
		plan := &anchorPlan{}
		for rank := range role.Ranks {
			rs := c.rankStatus(role.Name, rank)
			if rs == nil {
				c.e.reason(reason.New(reason.RankMissing, "%s rank %d never started", role.Name, rank).At(c.e.Arm, role.Name, rank))
				continue
			}
			sc := &rankScan{facts: &RankFacts{Role: role.Name, Rank: rank, Scope: Scope{File: rs.Log, Offset: rs.Offset, Inode: rs.Inode}}}
			jobs = append(jobs, job{role, rules, plan, sc})
			byRole[role.Name] = append(byRole[role.Name], sc)
		}
	}
	// Ranks are independent: read them on every core; a large scope of
	// fewer ranks than cores is read in parts.
	parts := partsPerScope(len(jobs))
	var wg sync.WaitGroup
	next := make(chan job)
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				c.scanRank(j.role, j.rules, j.plan, j.scan, parts)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for i := range c.s.Roles {
		role := &c.s.Roles[i]
		var ok []*rankScan
		for _, sc := range byRole[role.Name] {
			if sc.err == nil {
				ok = append(ok, sc)
				continue
			}
			f := sc.facts
			if se, isStale := sc.err.(*StaleError); isStale {
				c.e.reason(se.Reason().At(c.e.Arm, f.Role, f.Rank))
			} else {
				c.e.reason(reason.New(reason.StaleEvidence, "reading %s: %v", f.Scope.File, strings.ReplaceAll(sc.err.Error(), c.dir+string(filepath.Separator), "")).At(c.e.Arm, f.Role, f.Rank))
			}
		}
		c.completeness(role, ok)
		for _, sc := range ok {
			c.activationRecords(role, sc.facts)
			c.e.Ranks = append(c.e.Ranks, *sc.facts)
		}
	}
}

// activationRecords notes the rank's per-prompt records file, if any.
func (c *collector) activationRecords(role *scenarios.Role, f *RankFacts) {
	a := c.s.Evidence.Activation
	if a == nil || a.Role != role.Name || a.Records == "" {
		return
	}
	expanded, err := scenarios.Expand(a.Records, c.data(role, f.Rank))
	if err != nil {
		return
	}
	rel, err := c.local(expanded)
	if err != nil {
		return
	}
	if _, err := c.root.Stat(rel); err == nil {
		f.ActivationRecords = rel
		c.input(rel)
	}
}

func (c *collector) rankStatus(role string, rank int) *rundir.RankStatus {
	for i := range c.st.Ranks {
		if c.st.Ranks[i].Role == role && c.st.Ranks[i].Rank == rank {
			return &c.st.Ranks[i]
		}
	}
	return nil
}

func ranksWhere(scans []*rankScan, bad func(*rankScan) bool) string {
	var out []string
	for _, sc := range scans {
		if bad(sc) {
			out = append(out, strconv.Itoa(sc.facts.Rank))
		}
	}
	return strings.Join(out, ", ")
}

// completeness applies the cross-rank part of the phase rule: every
// expected rank must have ended its profiling lifecycle, started and ended
// its measured one, and hold nothing after it.
func (c *collector) completeness(role *scenarios.Role, scans []*rankScan) {
	ev := c.s.Evidence
	if ev.Profiling && ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == role.Name {
		if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.profEnded }); m != "" {
			c.e.reason(reason.New(reason.PhaseIncomplete, "the profiling lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
			return
		}
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.started }); m != "" {
		after := ""
		if ev.Profiling {
			after = " after the profiling lifecycle"
		}
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never started on rank(s) %s (no mode line%s)", role.Name, m, after))
		return
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.ended }); m != "" {
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return sc.anotherLifecycle }); m != "" {
		c.e.reason(reason.New(reason.StaleEvidence, "the scoped logs of role %s, rank(s) %s, hold another lifecycle after the measured one: the scope spans more than one attempt", role.Name, m))
	}
}

// count adds n matches of a count-only counter rule.
func (c *collector) count(f *RankFacts, rule string, n int64) {
	if f.Counters == nil {
		f.Counters = map[string]int64{}
	}
	f.Counters[strings.TrimPrefix(rule, "counter:")] += n
}

// take records a match of the measured lifecycle as a fact; the last match
// of a rule wins, except the mode, which is the lifecycle's first line.
func (c *collector) take(f *RankFacts, rule string, named map[string]string) {
	switch {
	case rule == "mode":
		if f.Mode == nil {
			f.Mode = map[string]string{}
			for k, v := range named {
				if k != "rank" {
					f.Mode[k] = v
				}
			}
		}
	case rule == "activation":
		n, _ := strconv.ParseUint(named["count"], 10, 64)
		f.Activation = &Activation{Count: n, Digest: named["digest"], Algorithm: named["algorithm"]}
	case strings.HasPrefix(rule, "counter:"):
		name := strings.TrimPrefix(rule, "counter:")
		if f.Counters == nil {
			f.Counters = map[string]int64{}
		}
		if group := c.s.Evidence.Counters[name].Value; group != "" {
			v, err := strconv.ParseInt(named[group], 10, 64)
			if err == nil {
				f.Counters[name] = v
			}
		} else {
			f.Counters[name]++
		}
	case strings.HasPrefix(rule, "fact:"):
		if f.Facts == nil {
			f.Facts = map[string]map[string]string{}
		}
		f.Facts[strings.TrimPrefix(rule, "fact:")] = named
	}
}

func (c *collector) throughput() {
	t := c.s.Evidence.Throughput
	if t == nil {
		return
	}
	expanded, err := scenarios.Expand(t.File, c.data(nil, 0))
	if err != nil {
		return
	}
	requested := c.s.Workload.Total() // 0: the record says
	metric := t.Metric
	if metric == "" {
		metric = scenarios.DefaultMetric
	}
	c.e.HeadlineMetric = metric
	c.e.HigherIsBetter = t.HigherIsBetter
	var rec *Record
	rel, data, err := c.readLocal(expanded)
	if err != nil {
		rec = newRecord(t.Format, rel)
		rec.problem("no record: %v", strings.ReplaceAll(err.Error(), c.dir+string(filepath.Separator), ""))
	} else {
		rec = ParseRecordFlag(data, rel, t.Format, requested, t.Pattern, metric, t.Valid)
		c.input(rel)
	}
	rec.File = rel
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
