package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

const scenarioYAML = `name: t
arms:
  async: {env: {TERM_MODE: "1"}}
  blocking: {env: {TERM_MODE: "0"}}
baseline: blocking
workload: {prompts: prompts.jsonl, requests: 4}
roles:
  - {name: ctx, ranks: 2, arm_env: true, command: [x]}
  - {name: client, client: true, command: [y]}
evidence:
  profiling: true
  mode: {role: ctx, pattern: 'mode rank=(?P<rank>\d+) terminal=(?P<TERM_MODE>\d)'}
  lifecycle_end: {role: ctx, pattern: 'summary rank=(?P<rank>\d+)'}
  activation: {role: ctx, pattern: 'activation rank=(?P<rank>\d+) count=(?P<count>\d+) digest=(?P<digest>\w+) algorithm=(?P<algorithm>\S+)'}
  counters:
    commits: {role: ctx, pattern: 'summary rank=(?P<rank>\d+) commits=(?P<n>\d+)', value: n}
  configs:
    - {name: policy, role: ctx, file: "cfg-{{.Rank}}.yaml", path: scheduler.policy, equals: fcfs}
  throughput: {file: throughput.json, format: vllm}
acceptance:
  - {requests: all}
  - {throughput: valid}
  - {mode: all-ranks}
  - {digest: agree}
  - {activation: requests}
  - {counter: commits, role: ctx, equals: requests, arms: [async]}
  - {config: policy}
  - {clean_shutdown: true}
`

const alg = "sha256-length-prefixed-prompt-sha256-v1"

// hex64 is the digest of the test's prompts file ([1] [2] [3] [4]), so a
// run that activates it served the declared workload.
const hex64 = "70cacee26abf5cdcc358641693d290917798552fcb58acb30f15cd075a63d098"

// lifecycle is one rank's profiling and measured lifecycles.
func lifecycle(rank int, mode string, count, commits int, digestHex string) string {
	return fmt.Sprintf("mode rank=%d terminal=%s\nsummary rank=%d commits=0\nmode rank=%d terminal=%s\nactivation rank=%d count=%d digest=%s algorithm=%s\nsummary rank=%d commits=%d\n",
		rank, mode, rank, rank, mode, rank, count, digestHex, alg, rank, commits)
}

type run struct {
	// link, when set, makes throughput.json a symbolic link to a record
	// outside the run directory holding record.
	link   bool
	logs   map[string]string // ctx-0.log ...
	record string
	state  string
	extra  []reason.Reason
	cfg    string
	offset int64
	yaml   string // the scenario, when not scenarioYAML
	// pins are the images the run ran (its matched digest is theirs);
	// recorded says its status records them.
	pins     []rundir.ContainerImage
	recorded bool
	rules    *Rules // the compiled rules it shares; nil: its own
	// files are other files of the run directory, by their path in it.
	files map[string]string
}

func goodRun() *run {
	return &run{
		logs:   map[string]string{"ctx-0.log": lifecycle(0, "1", 4, 4, hex64), "ctx-1.log": lifecycle(1, "1", 4, 4, hex64)},
		record: `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "valid": true}`,
		state:  rundir.StateSucceeded,
		cfg:    "scheduler: {policy: fcfs}\n",
	}
}

func (r *run) collect(t *testing.T) *Evidence {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "prompts.jsonl"), []byte("[1]\n[2]\n[3]\n[4]\n"), 0o644)
	y := scenarioYAML
	if r.yaml != "" {
		y = r.yaml
	}
	os.WriteFile(filepath.Join(root, "s.yaml"), []byte(y), 0o644)
	s, err := scenarios.Load(filepath.Join(root, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "run")
	os.Mkdir(dir, 0o755)
	st := rundir.Status{Scenario: s.Name, MatchedDigest: s.WithPins(r.pins).MatchedDigest(), Arm: "async", Token: "tok", Dir: dir, State: r.state, Reasons: r.extra}
	if r.recorded {
		st.Containers = r.pins
	}
	for rank := range 2 {
		name := fmt.Sprintf("ctx-%d.log", rank)
		if content, ok := r.logs[name]; ok {
			os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
			st.Ranks = append(st.Ranks, rundir.RankStatus{Role: "ctx", Rank: rank, Log: name, Offset: r.offset})
		}
		if r.cfg != "" {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("cfg-%d.yaml", rank)), []byte(r.cfg), 0o644)
		}
	}
	switch {
	case r.record != "" && r.link:
		stale := filepath.Join(root, "stale-throughput.json")
		os.WriteFile(stale, []byte(r.record), 0o644)
		os.Symlink(stale, filepath.Join(dir, "throughput.json"))
	case r.record != "":
		os.WriteFile(filepath.Join(dir, "throughput.json"), []byte(r.record), 0o644)
	}
	for name, content := range r.files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	return collectWith(t, s, "async", dir, st, Options{Rules: r.rules})
}

// collectWithStatus writes the run's status.json and collects its evidence.
func collectWithStatus(t *testing.T, s *scenarios.Scenario, arm, dir string, st rundir.Status) *Evidence {
	t.Helper()
	return collectWith(t, s, arm, dir, st, Options{})
}

// collectWith is collectWithStatus with options.
func collectWith(t *testing.T, s *scenarios.Scenario, arm, dir string, st rundir.Status, opts Options) *Evidence {
	t.Helper()
	data, _ := json.Marshal(st)
	os.WriteFile(filepath.Join(dir, "status.json"), data, 0o644)
	e, err := CollectWith(s, arm, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAcceptedRun(t *testing.T) {
	e := goodRun().collect(t)
	if !e.Accepted || len(e.Reasons) > 0 {
		t.Fatalf("not accepted: %v", e.Reasons)
	}
	if e.Workload == nil || e.Workload.Count != 4 || e.Workload.Hex != hex64 {
		t.Fatalf("workload %v", e.Workload)
	}
	for _, c := range e.Criteria {
		if !c.OK {
			t.Errorf("criterion %s failed: %s", c.ID, c.Detail)
		}
	}
	if f := e.Ranks[1]; f.Mode["TERM_MODE"] != "1" || f.Counters["commits"] != 4 || f.Activation.Count != 4 {
		t.Fatalf("facts of rank 1: %+v", f)
	}
}

// TestCensorReasons produces every reason evidence can give.
func TestCensorReasons(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(r *run)
		want   string
		detail string
	}{
		{"phase-incomplete: profiling never ended", func(r *run) { r.logs["ctx-1.log"] = "mode rank=1 terminal=1\n" }, "phase-incomplete", "never ended on rank(s) 1"},
		{"phase-incomplete: measured never ended (crash)", func(r *run) {
			r.logs["ctx-0.log"] = "mode rank=0 terminal=1\nsummary rank=0 commits=0\nmode rank=0 terminal=1\n"
		}, "phase-incomplete", "measured lifecycle of role ctx never ended on rank(s) 0"},
		{"stale-evidence: another attempt in scope", func(r *run) {
			r.logs["ctx-0.log"] = lifecycle(0, "1", 9, 9, hex64) + lifecycle(0, "1", 4, 4, hex64)
		}, "stale-evidence", "more than one attempt"},
		{"stale-evidence: log shorter than its offset", func(r *run) { r.offset = 1 << 20 }, "stale-evidence", "fewer than its recorded offset"},
		{"arm-mode-mismatch", func(r *run) { r.logs["ctx-1.log"] = lifecycle(1, "0", 4, 4, hex64) }, "arm-mode-mismatch", "ctx rank 1 ran TERM_MODE=0"},
		{"digest-rank-disagreement", func(r *run) { r.logs["ctx-1.log"] = lifecycle(1, "1", 4, 4, strings.Repeat("cd", 32)) }, "digest-rank-disagreement", "ctx rank 1 activated 4 prompts"},
		{"digest-missing", func(r *run) {
			r.logs["ctx-0.log"] = strings.Replace(lifecycle(0, "1", 4, 4, hex64), "activation rank=0", "activated rank=0", 1)
		}, "digest-missing", "no activation digest"},
		{"digest-algorithm", func(r *run) {
			r.logs["ctx-0.log"] = strings.ReplaceAll(lifecycle(0, "1", 4, 4, hex64), alg, "md5-of-ids")
		}, "digest-algorithm", "unknown digest algorithm"},
		{"workload-mismatch: both ranks agree on other prompts", func(r *run) {
			r.logs["ctx-0.log"] = lifecycle(0, "1", 4, 4, strings.Repeat("ab", 32))
			r.logs["ctx-1.log"] = lifecycle(1, "1", 4, 4, strings.Repeat("ab", 32))
		}, "workload-mismatch", "the served workload is not the declared one"},
		{"fact-count: 255/256 style", func(r *run) { r.logs["ctx-1.log"] = lifecycle(1, "1", 4, 3, hex64) }, "fact-count", "ctx rank 1: 3/4 commits"},
		{"requests-failed", func(r *run) {
			r.record = `{"num_prompts": 4, "completed": 3, "failed": 1, "output_throughput": 100.5, "valid": false}`
		}, "requests-failed", "3 of 4 requests succeeded"},
		{"throughput-invalid: validity flag false", func(r *run) {
			r.record = `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "valid": false}`
		}, "throughput-invalid", "validity flag is false"},
		{"throughput-invalid: no record", func(r *run) { r.record = "" }, "throughput-invalid", "no record"},
		{"config-mismatch: key dropped", func(r *run) { r.cfg = "scheduler: {}\n" }, "config-mismatch", `has no key "policy"`},
		{"config-mismatch: other value", func(r *run) { r.cfg = "scheduler: {policy: lifo}\n" }, "config-mismatch", "rendered scheduler.policy = lifo"},
		{"unclean-shutdown", func(r *run) {
			r.state = rundir.StateFailed
			r.extra = []reason.Reason{reason.New(reason.UncleanShutdown, "ctx rank 1 ignored SIGTERM")}
		}, "unclean-shutdown", "did not shut down cleanly"},
		{"rank-missing", func(r *run) { delete(r.logs, "ctx-1.log") }, "rank-missing", "ctx rank 1 never started"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := goodRun()
			c.edit(r)
			e := r.collect(t)
			if e.Accepted {
				t.Fatal("accepted")
			}
			for _, rs := range e.Reasons {
				if string(rs.Code) == c.want && strings.Contains(rs.Detail, c.detail) {
					return
				}
			}
			t.Fatalf("no %s reason with %q; got:\n%s", c.want, c.detail, (&reason.Error{Reasons: e.Reasons}).Error())
		})
	}
}

func TestCriterionLimitedToArms(t *testing.T) {
	r := goodRun()
	r.logs["ctx-1.log"] = lifecycle(1, "1", 4, 3, hex64)
	e := r.collect(t)
	found := false
	for _, c := range e.Criteria {
		if c.Kind == "counter" {
			found = true
			if c.OK {
				t.Fatal("counter criterion for arm async passed with 3/4")
			}
		}
	}
	if !found {
		t.Fatal("no counter criterion")
	}
}

func TestProfilingLifecycleIsNotMeasured(t *testing.T) {
	// The profiling lifecycle logs the blocking mode and its own summary;
	// only the measured lifecycle's facts may count.
	r := goodRun()
	r.logs["ctx-0.log"] = "mode rank=0 terminal=0\nactivation rank=0 count=99 digest=" + hex64 + " algorithm=" + alg + "\nsummary rank=0 commits=99\n" +
		"mode rank=0 terminal=1\nactivation rank=0 count=4 digest=" + hex64 + " algorithm=" + alg + "\nsummary rank=0 commits=4\n"
	e := r.collect(t)
	if !e.Accepted {
		t.Fatalf("profiling facts leaked into the measured lifecycle: %v", e.Reasons)
	}
}

// A record outside the run directory never counts, not even through a
// symbolic link inside it: evidence is read through the run's os.Root.
func TestRecordOutsideTheRunIsNotRead(t *testing.T) {
	r := goodRun()
	r.link = true
	e := r.collect(t)
	if e.Accepted || e.Throughput == nil || e.Throughput.Valid {
		t.Fatalf("a linked stale record was accepted: %+v", e.Throughput)
	}
	if p := strings.Join(e.Throughput.Problems, "; "); !strings.Contains(p, "no record") || !strings.Contains(p, "escapes") && !strings.Contains(p, "outside") {
		t.Fatalf("problems %q do not say the record is outside the run", p)
	}
}

// requests: from-record: a client that decides how many requests to send
// (a duration-based one) is held to what its record says it attempted.
func TestRequestsFromRecord(t *testing.T) {
	y := strings.Replace(scenarioYAML, "workload: {prompts: prompts.jsonl, requests: 4}", "workload: {requests: from-record}", 1)
	y = strings.Replace(y, "  - {digest: agree}\n  - {activation: requests}\n  - {counter: commits, role: ctx, equals: requests, arms: [async]}\n", "", 1)
	for _, c := range []struct {
		name, record string
		ok           bool
		detail       string
	}{
		{"all attempted succeeded", `{"num_prompts": 37, "completed": 37, "failed": 0, "output_throughput": 100.5}`, true, "37/37 attempted requests succeeded"},
		{"some failed", `{"num_prompts": 37, "completed": 35, "failed": 2, "output_throughput": 100.5}`, false, "35 of 37 attempted requests succeeded (2 failed)"},
		{"attempts unknown", `{"completed": 37, "output_throughput": 100.5}`, false, "neither how many it attempted nor how many failed"},
		// The first failed request named, as abbench's client and vLLM
		// name it: "2 failed" alone does not say the server was never
		// reached.
		{"the client's first failure", `{"num_prompts": 37, "completed": 35, "failed": 2, "output_throughput": 100.5, "first_failure": "request 3: connect: dial tcp 127.0.0.1:9: connect: connection refused"}`, false,
			"(2 failed); the first: request 3: connect: dial tcp 127.0.0.1:9: connect: connection refused"},
		{"vLLM's errors", `{"num_prompts": 3, "completed": 2, "output_throughput": 100.5, "errors": ["", "Traceback (most recent call last):\n  aiohttp.ClientConnectorError: Cannot connect to host http://u:hunter2@h:1", ""]}`, false,
			"(1 failed); the first: request 1: Traceback (most recent call last): aiohttp.ClientConnectorError: Cannot connect to host http://u:[REDACTED]@h:1"},
		// a hostile server's error: terminal escapes and invalid UTF-8
		// come out as '?', one line
		{"an error of control bytes", `{"num_prompts": 2, "completed": 1, "output_throughput": 100.5, "errors": ["\u001b[2J\u001b]0;pwned\u0007 bad\r\nline \ud800"]}`, false,
			"the first: request 0: ?[2J?]0;pwned? bad line ?"},
	} {
		r := goodRun()
		r.yaml, r.record = y, c.record
		e := r.collect(t)
		var req Criterion
		for _, cr := range e.Criteria {
			if cr.Kind == "requests" {
				req = cr
			}
		}
		if req.OK != c.ok || !strings.Contains(req.Detail, c.detail) {
			t.Errorf("%s: ok %v %q, want %v %q", c.name, req.OK, req.Detail, c.ok, c.detail)
		}
	}
}

// A scope read in parts on several cores gives the evidence a single
// reader gives: parts end anywhere (inside lines, on a match, on a
// newline), and the lifecycle, counters (count-only and valued), the
// measured offsets and the activation come out the same.
func TestScopeReadInParts(t *testing.T) {
	y := strings.Replace(scenarioYAML, "  counters:\n", "  counters:\n    votes: {role: ctx, pattern: 'vote rank=(?P<rank>\\d+) id=\\d+'}\n", 1)
	log := func(rank int) string {
		var b strings.Builder
		b.WriteString(strings.Repeat("an earlier attempt's line, vote rank=9 id=1\n", 7)) // before the offset
		noise := func(n int) {
			for i := range n {
				fmt.Fprintf(&b, "INFO step=%d %s\n", i, strings.Repeat("x", i%37))
				if i%5 == 0 {
					fmt.Fprintf(&b, "DEBUG vote rank=%d id=%d\n", rank, i)
				}
			}
		}
		fmt.Fprintf(&b, "mode rank=%d terminal=1\n", rank)
		noise(40)
		fmt.Fprintf(&b, "summary rank=%d commits=0\nmode rank=%d terminal=1\n", rank, rank)
		noise(300)
		fmt.Fprintf(&b, "activation rank=%d count=4 digest=%s algorithm=%s\n", rank, hex64, alg)
		noise(50)
		fmt.Fprintf(&b, "summary rank=%d commits=4\n", rank)
		noise(20)
		return b.String()
	}
	offset := int64(len(strings.Repeat("an earlier attempt's line, vote rank=9 id=1\n", 7)))
	r := goodRun()
	r.yaml, r.offset = y, offset
	r.logs = map[string]string{"ctx-0.log": log(0), "ctx-1.log": log(1)}
	facts := func(e *Evidence) string {
		var out []string
		for _, f := range e.Ranks {
			f.BytesRead = 0 // parts may read a little past their ends
			data, _ := json.Marshal(f)
			out = append(out, string(data))
		}
		return strings.Join(out, "\n") + fmt.Sprint(e.Accepted, e.Reasons)
	}
	oldMin, oldParts := minPart, partsPerScope
	defer func() { minPart, partsPerScope = oldMin, oldParts }()
	partsPerScope = func(int) int { return 1 }
	want := facts(r.collect(t))
	if !strings.Contains(want, `"votes":70`) || !strings.Contains(want, `"commits":4`) {
		t.Fatalf("the single reader's facts lack the counters: %s", want)
	}
	for _, size := range []int64{97, 256, 1000, 4096} {
		for parts := 2; parts <= 7; parts++ {
			minPart, partsPerScope = size, func(int) int { return parts }
			if got := facts(r.collect(t)); got != want {
				t.Fatalf("%d parts of at least %d bytes:\n%s\nwant (one reader):\n%s", parts, size, got, want)
			}
		}
	}
	// A rule without a case-sensitive literal makes every line a
	// candidate (no block search): the same facts, in one part or several.
	r.yaml = strings.Replace(y, "pattern: 'vote rank=", "pattern: '(?i)vote rank=", 1)
	for _, parts := range []int{1, 3} {
		minPart, partsPerScope = 256, func(int) int { return parts }
		if got := facts(r.collect(t)); got != want {
			t.Fatalf("line by line, %d part(s):\n%s\nwant:\n%s", parts, got, want)
		}
	}
}

// TestUnreadableRecordIsTheRootCause: a record abbench cannot read shows
// no failed request, so the run is censored throughput-invalid first and
// never requests-failed (which would send its reader after failures that
// did not happen).
func TestUnreadableRecordIsTheRootCause(t *testing.T) {
	for name, record := range map[string]string{
		"another tool's record": `{"records": {"request_throughput": {"unit": "requests/sec", "avg": 3.2}}}`,
		// A key of this format's name (vLLM's duration) in another tool's
		// stats is no count: it was blamed on requests that failed.
		"another tool's record with a duration": `{"duration": 60.2, "num_requests": 1000, "num_failures": 3}`,
		"console text":                          "Successful requests:                     4\nOutput token throughput (tok/s):         100.5\n",
		"no record":                             "",
		// Two runs appended to one file: which is this run's, it does not
		// say; the second lost 3 of its 4 requests.
		"two results": `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5}` + "\n" +
			`{"num_prompts": 4, "completed": 1, "failed": 3, "output_throughput": 20.1}`,
		"trailing text": `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5} and more`,
		"truncated":     `{"num_prompts": 4, "completed": 4, "failed": 0, "output_thr`,
	} {
		t.Run(name, func(t *testing.T) {
			r := goodRun()
			r.record = record
			e := r.collect(t)
			if e.Accepted || len(e.Reasons) == 0 {
				t.Fatalf("accepted or no reason: %+v", e.Reasons)
			}
			if e.Reasons[0].Code != reason.ThroughputInvalid || !strings.Contains(e.Reasons[0].Detail, "vllm record throughput.json") {
				t.Errorf("first reason %s: %s, want throughput-invalid naming the format and the file", e.Reasons[0].Code, e.Reasons[0].Detail)
			}
			for _, rs := range e.Reasons {
				if rs.Code == reason.RequestsFailed {
					t.Errorf("requests-failed though nothing is known to have failed: %s", rs.Detail)
				}
			}
		})
	}
}

// TestContainerRunHeldToTheImagesItRecorded: a scenario read again knows
// no digest of its images; the run's evidence is derived with the digests
// its status recorded, and a run that recorded none does not match.
func TestContainerRunHeldToTheImagesItRecorded(t *testing.T) {
	r := goodRun()
	r.yaml = strings.Replace(scenarioYAML, "{name: ctx, ranks: 2,", `{name: ctx, ranks: 2, container: {image: "srv:1"},`, 1)
	r.pins = []rundir.ContainerImage{{Role: "ctx", Runtime: "docker", Image: "srv:1", Digest: "sha256:" + strings.Repeat("c", 64)}}
	r.recorded = true
	if e := r.collect(t); !e.Accepted {
		t.Fatalf("the run's own images: %v", e.Reasons)
	}
	r.recorded = false
	if e := r.collect(t); e.Accepted || e.Reasons[0].Code != reason.ConfigMismatch {
		t.Fatalf("a run that recorded no image: accepted %v, %v", e.Accepted, e.Reasons)
	}
}

// TestNothingServedIsTheRootCause: a record that says not one request
// succeeded makes requests-failed the run's root cause and what no served
// request produced its consequences; the mark is derived from the record
// each time, never written into evidence.json (a run written before it
// existed re-derives unchanged). One request served leaves each reason a
// root cause of its own.
func TestNothingServedIsTheRootCause(t *testing.T) {
	r := goodRun()
	r.record = `{"num_prompts": 4, "completed": 0, "failed": 4, "output_throughput": 0, "valid": false}`
	e := r.collect(t)
	g := e.RootCausesFirst()
	if len(g) != 1 || g[0].Code != reason.RequestsFailed || len(g[0].Consequences) == 0 {
		t.Fatalf("nothing served: %d root causes, the first %s with %d consequences, want requests-failed alone: %+v", len(g), g[0].Code, len(g[0].Consequences), g)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "nothing_served") {
		t.Fatal("evidence.json holds the derived mark")
	}
	r.record = `{"num_prompts": 4, "completed": 1, "failed": 3, "output_throughput": 20.5, "valid": true}`
	if g := r.collect(t).RootCausesFirst(); len(g[0].Consequences) != 0 {
		t.Fatalf("one served: %s has consequences %+v", g[0].Code, g[0].Consequences)
	}
}

// TestUnloggedModeFollowsTheRankThatStoppedTheRun: a rank that exited
// stopped the run before rank 1 logged its mode; rank 1's mode mismatch
// says only that, read from its facts (no mode), and is held under the
// exit. A mode of another arm is no such thing.
func TestUnloggedModeFollowsTheRankThatStoppedTheRun(t *testing.T) {
	r := goodRun()
	r.logs["ctx-1.log"] = strings.ReplaceAll(lifecycle(1, "1", 4, 4, hex64), "mode rank=1 terminal=1\n", "")
	r.extra = []reason.Reason{reason.New(reason.RankExited, "ctx rank 0 exited with status 3").At("async", "ctx", 0)}
	g := r.collect(t).RootCausesFirst()
	if g[0].Code != reason.RankExited || !slices.ContainsFunc(g[0].Consequences, func(c reason.Reason) bool { return c.Code == reason.ArmModeMismatch }) {
		t.Fatalf("grouped %+v, want rank-exited holding the unlogged mode", g)
	}
	r.logs["ctx-1.log"] = lifecycle(1, "0", 4, 4, hex64)
	g = r.collect(t).RootCausesFirst()
	if len(g) != 2 || g[1].Code != reason.ArmModeMismatch || g[1].Unmeasured {
		t.Fatalf("another arm's mode grouped %+v, want it a root cause of its own, measured", g)
	}
}
