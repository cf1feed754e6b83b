package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const base = `name: t
arms:
  fast: {env: {MODE: "1", PEER: "1"}}
  slow: {env: {MODE: "0", PEER: "1"}}
baseline: slow
workload: {prompts: prompts.jsonl, requests: 2, concurrency: 2}
roles:
  - {name: server, ranks: 2, arm_env: true, command: [srv, --rank, "{{.Rank}}"]}
  - {name: client, client: true, after_ready: true, command: [cli, --out, "{{.Out}}/t.json"]}
evidence:
  mode: {role: server, pattern: 'mode rank=(?P<rank>\d+) mode=(?P<MODE>\d)'}
  throughput: {file: t.json, format: vllm}
acceptance:
  - {requests: all}
`

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, yaml string) (*Scenario, error) {
	t.Helper()
	return Load(write(t, loadDir(t), "s.yaml", yaml))
}

// loadDirs is each test's directory for load: one per test, its s.yaml
// written over, not a directory and two files per call (the table tests
// load scores of scenarios, and making files was most of this package's
// quick-loop CPU).
var loadDirs sync.Map // *testing.T -> string

func loadDir(t *testing.T) string {
	if dir, ok := loadDirs.Load(t); ok {
		return dir.(string)
	}
	dir := t.TempDir()
	write(t, dir, "prompts.jsonl", "[1,2]\n[3]\n")
	loadDirs.Store(t, dir)
	t.Cleanup(func() { loadDirs.Delete(t) })
	return dir
}

func TestLoadAppliesDefaults(t *testing.T) {
	s, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.ArmOrder, ","); got != "fast,slow" {
		t.Errorf("arm order %s, want file order fast,slow", got)
	}
	if s.Deadlines.Ready != DefaultDeadlines.Ready || s.Deadlines.KillGrace != DefaultDeadlines.KillGrace {
		t.Errorf("deadlines not defaulted: %+v", s.Deadlines)
	}
	if s.Roles[1].Ranks != 1 || s.Roles[1].Log != "client-{{.Rank}}.log" {
		t.Errorf("role defaults: %+v", s.Roles[1])
	}
	if s.Workload.Rounds != 1 || s.Workload.Algorithm != "sha256-length-prefixed-prompt-sha256-v1" || s.PromptsDigest.Count != 2 {
		t.Errorf("workload defaults: %+v %v", s.Workload, s.PromptsDigest)
	}
	if s.NoiseThreshold != DefaultNoiseThreshold {
		t.Errorf("noise threshold %v", s.NoiseThreshold)
	}
}

func TestLoadRejects(t *testing.T) {
	cases := []struct {
		name, from, to string
		line           int
		want           string
	}{
		{"unknown key", "baseline: slow", "baseline: slow\nbasline: x", 6, `unknown key "basline" in scenario: did you mean "baseline"?`},
		{"unknown key far from any", "baseline: slow", "baseline: slow\nzzz: x", 6, `unknown key "zzz" in scenario (allowed: `},
		{"wrong indentation", "baseline: slow", "baseline: slow\n  extra: x", 6, "check the indentation of this line and the one before"},
		{"duplicate key", "baseline: slow", "baseline: slow\nbaseline: fast", 6, "duplicate key"},
		{"no baseline", "baseline: slow\n", "", 1, "missing baseline"},
		{"arm name", "  fast: {", "  Fast!: {", 3, `arm name "Fast!"`},
		{"env key", `MODE: "1", PEER: "1"`, `MODE: "1", PEER: "1", "1BAD": x`, 4, `arm "slow" does not set 1BAD, which arm "fast" sets (line 3)`},
		{"env key mistyped", `MODE: "0", PEER: "1"`, `MODE: "0", PEEER: "1"`, 4, `arm "slow" sets PEEER where arm "fast" sets PEER (line 3): one of them is mistyped`},
		{"arm key in role env", "command: [srv,", "env: {PEER: x}, command: [srv,", 8, "PEER is an arm key"},
		{"after unknown", "after_ready: true,", "after: [db],", 9, `starts after "db", which is not a role`},
		{"cycle", "arm_env: true, command: [srv", "arm_env: true, after: [client], command: [srv", 7, "server -> client -> server"},
		{"two clients", "ranks: 2, arm_env: true,", "ranks: 2, client: true, arm_env: true,", 9, "second client"},
		{"mode group not an arm key", "mode=(?P<MODE>", "mode=(?P<OTHER>", 11, `mode group "OTHER" is not an arm key`},
		{"mode role without arm env", "arm_env: true,", "", 11, "does not take the arm env"},
		{"throughput format", "format: vllm", "format: csv", 12, `throughput format "csv" is not known`},
		{"requests over prompts", "requests: 2,", "requests: 3,", 6, "requests 3, but the prompts file holds 2"},
		{"unknown algorithm", "requests: 2,", "algorithm: md5, requests: 2,", 6, `unknown digest algorithm "md5"`},
		{"algorithm unit", "requests: 2,", "algorithm: sha256-length-prefixed-text-sha256-v1, requests: 2,", 6, "hashes text"},
		{"noise", "  - {requests: all}", "  - {requests: all}\nnoise_threshold: -1", 15, "noise_threshold -1"},
		{"deadline too long", "  - {requests: all}", "  - {requests: all}\ndeadlines: {client: 48h}", 15, "at most 24h0m0s"},
		{"expression", "  - {requests: all}", "  - {activation: requests*users}", 14, `"users" is neither`},
		{"ready both", "arm_env: true,", "arm_env: true, ready: {log: x, port: \"1\"},", 8, "not both"},
		{"cpus", "  - {requests: all}", "  - {requests: all}\nlauncher: {local: {cpus: 'all'}}", 15, `cpus "all"`},
		{"concurrent with cpus", "  - {requests: all}", "  - {requests: all}\nlauncher: {local: {cpus: '0-1', concurrent_safe: true}}", 15, `concurrent_safe with cpus "0-1"`},
		{"concurrent_safe not a bool", "  - {requests: all}", "  - {requests: all}\nlauncher: {local: {concurrent_safe: maybe}}", 15, `"maybe" where true or false is expected`},
		{"kubernetes ranks", "  - {requests: all}", "  - {requests: all}\nlauncher: {kubernetes: {ranks: srun}}", 15, `ranks "srun": kubernetes (a pod per rank) or local`},
		{"kubernetes api server", "  - {requests: all}", "  - {requests: all}\nlauncher: {kubernetes: {api_server: '10.0.0.1:6443'}}", 15, `api_server "10.0.0.1:6443": the API server's https://HOST:PORT`},
		{"kubernetes key", "  - {requests: all}", "  - {requests: all}\nlauncher: {kubernetes: {rank: local}}", 15, `did you mean "ranks"?`},
		{"role kubernetes key", "arm_env: true,", "arm_env: true, kubernetes: {imag: x},", 8, `unknown key "imag" in rolekubernetes: did you mean "image"?`},
		{"role image template", "arm_env: true,", "arm_env: true, kubernetes: {image: 'srv:{{.Arm}}'},", 8, `is a template: every arm runs one image`},
		{"role quantity", "arm_env: true,", "arm_env: true, kubernetes: {resources: {requests: {cpu: two}}},", 8, `requests cpu "two" is not a Kubernetes quantity`},
		{"role resource name", "arm_env: true,", "arm_env: true, kubernetes: {resources: {limits: {'nvidia.com/': '1'}}},", 8, `resource "nvidia.com/" is not a resource name`},
		{"role extended request", "arm_env: true,", "arm_env: true, kubernetes: {resources: {requests: {nvidia.com/gpu: '1'}}},", 8, "extended resource nvidia.com/gpu: requests 1 needs limits 1 too"},
		{"role toleration", "arm_env: true,", "arm_env: true, kubernetes: {tolerations: [{key: gpu, operator: Has}]},", 8, `toleration operator "Has": choose Equal or Exists`},
		{"role toleration effect", "arm_env: true,", "arm_env: true, kubernetes: {tolerations: [{operator: Exists, effect: NoRun}]},", 8, `toleration effect "NoRun"`},
		{"role node selector", "arm_env: true,", "arm_env: true, kubernetes: {node_selector: {gpu: 'a b'}},", 8, `node_selector gpu="a b" is not a label`},
		{"role pull policy", "arm_env: true,", "arm_env: true, kubernetes: {image_pull_policy: Sometimes},", 8, `image_pull_policy "Sometimes"`},
		{"not a mapping", base, "- a\n- b\n", 1, "a scenario is a mapping"},
		{"two documents", base, base + "---\nname: u\n", 0, "more than one YAML document"},
		{"empty", base, "", 1, "empty scenario"},
		{"abbench variable as arm key", `PEER: "1"}}
  slow`, `PEER: "1", ABBENCH_TOKEN: "x"}}
  slow`, 3, "ABBENCH_TOKEN is reserved"},
		{"PATH in env", "  - {requests: all}", "  - {requests: all}\nenv: {PATH: /opt/bin}", 15, "PATH is reserved"},
		{"secret-named arm key", `MODE: "1", PEER: "1"}}`, `MODE: "1", PEER: "1", API_KEY: "a"}}`, 3, "API_KEY names a secret"},
		{"NUL in an arm value", `MODE: "1", PEER: "1"}}`, `MODE: "1\0", PEER: "1"}}`, 3, "holds a NUL byte"},
		{"record outside the run", "file: t.json", "file: /tmp/t.json", 12, "outside the run directory"},
		{"record above the run", "file: t.json", "file: ../t.json", 12, "outside the run directory"},
		{"record through .Dir", "file: t.json", "file: '{{.Dir}}/t.json'", 12, "outside the run directory"},
		{"no prompts, no requests", "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", "{concurrency: 2}", 6, "needs prompts"},
		{"requests negative", "requests: 2,", "requests: -3,", 6, `requests "-3": give a whole number of at least 1, or from-record`},
		{"requests a word", "requests: 2,", "requests: lots,", 6, `requests "lots"`},
		{"result of a regex record", "format: vllm}", "format: regex, pattern: '(?P<completed>\\d+) (?P<output_throughput>\\d+)',\n    result: GET}", 13,
			`throughput.result "GET": a regex record has no results to name`},
		{"record word", "  - {requests: all}", "  - {record: yes}", 14, `record: "yes" is not allowed (allowed: valid)`},
		{"record without a record", "  throughput: {file: t.json, format: vllm}\nacceptance:\n  - {requests: all}", "acceptance:\n  - {record: valid}", 13, "criterion 1 needs evidence.throughput"},
		{"record and throughput in one", "  - {requests: all}", "  - {record: valid, throughput: valid}", 14, "set exactly one of requests, throughput, record,"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.from) {
				t.Fatalf("test edits %q, which the base lacks", c.from)
			}
			_, err := load(t, strings.Replace(base, c.from, c.to, 1))
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("got %v, want Errors", err)
			}
			for _, e := range es {
				if strings.Contains(e.Msg, c.want) {
					if e.Line != c.line {
						t.Fatalf("%q at line %d, want line %d", e.Msg, e.Line, c.line)
					}
					return
				}
			}
			t.Fatalf("no error contains %q: %v", c.want, err)
		})
	}
}

func matched(t *testing.T, yaml string) string {
	t.Helper()
	s, err := load(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	return s.MatchedDigest()
}

func TestMatchedDigest(t *testing.T) {
	want := matched(t, base)
	same := map[string]string{
		"arm values":          strings.Replace(base, `MODE: "0"`, `MODE: "a,b c=d"`, 1),
		"explicit defaults":   strings.Replace(base, "{name: client,", "{name: client, ranks: 1,", 1),
		"description":         "description: prose\n" + base,
		"formatting":          strings.ReplaceAll(base, ", ", ",  "),
		"default deadline":    base + "deadlines: {ready: 2m}\n",
		"env key order":       strings.Replace(base, `{MODE: "1", PEER: "1"}`, `{PEER: "1", MODE: "1"}`, 1),
		"prompts file moved?": base, // same content: see TestMatchedDigestFollowsPromptContent
	}
	for name, y := range same {
		if got := matched(t, y); got != want {
			t.Errorf("%s changed the matched digest", name)
		}
	}
	differ := map[string]string{
		"command":      strings.Replace(base, "[srv, --rank", "[srv2, --rank", 1),
		"rank count":   strings.Replace(base, "ranks: 2", "ranks: 3", 1),
		"concurrency":  strings.Replace(base, "concurrency: 2", "concurrency: 1", 1),
		"arm key":      strings.ReplaceAll(base, "PEER", "PEERS"),
		"arm name":     strings.ReplaceAll(base, "fast", "quick"),
		"deadline":     base + "deadlines: {ready: 3m}\n",
		"criterion":    base + "  - {throughput: valid}\n",
		"the result":   strings.Replace(base, "format: vllm}", "format: vllm, result: x}", 1),
		"constant env": strings.Replace(base, "baseline: slow", "baseline: slow\nenv: {X: y}", 1),
	}
	for name, y := range differ {
		if got := matched(t, y); got == want {
			t.Errorf("%s did not change the matched digest", name)
		}
	}
	// {record: valid} needs a format whose tool says valid (see
	// TestRecordValidNeedsAToolThatSaysValid).
	mlperf := strings.Replace(base, "format: vllm}", "format: mlperf}", 1)
	if matched(t, mlperf) == matched(t, mlperf+"  - {record: valid}\n") {
		t.Errorf("the verdict did not change the matched digest")
	}
}

func TestMatchedDigestFollowsPromptContent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "prompts.jsonl", "[1,2]\n[3]\n")
	write(t, dir, "other.jsonl", "[1,2]\n[3]\n")
	a, _ := Load(write(t, dir, "a.yaml", base))
	b, _ := Load(write(t, dir, "b.yaml", strings.Replace(base, "prompts.jsonl", "other.jsonl", 1)))
	if a.MatchedDigest() != b.MatchedDigest() {
		t.Error("same prompt content under another name changed the matched digest")
	}
	write(t, dir, "other.jsonl", "[1,2]\n[4]\n")
	c, _ := Load(write(t, dir, "c.yaml", strings.Replace(base, "prompts.jsonl", "other.jsonl", 1)))
	if a.MatchedDigest() == c.MatchedDigest() {
		t.Error("other prompt content kept the matched digest")
	}
}

// The user's scenarios live at the module root's scenarios/, beside no Go
// file: every one of them loads.
func TestCommittedScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no committed scenarios")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestAliasBombRefusedQuickly(t *testing.T) {
	bomb := `a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
name: *h
`
	done := make(chan error, 1)
	go func() { _, err := Parse([]byte(bomb), "bomb.yaml"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("alias bomb accepted")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("alias bomb not refused within 5s")
	}
}

func TestMetricHigherIsBetter(t *testing.T) {
	for metric, higher := range map[string]bool{
		"output_throughput": true, "request_throughput": true, "busbw_gbps": true, "total_token_throughput": true,
		"p99_ttft_ms": false, "mean_itl_ms": false, "duration": false, "p99": false, "e2el_p95": false, "latency": false,
		"timeouts_avoided": true,
	} {
		if got := MetricHigherIsBetter(metric); got != higher {
			t.Errorf("%s: higher is better %v, want %v", metric, got, higher)
		}
	}
}

// A workload without prompts declares its requests (or leaves them to the
// record); what needs prompt content is refused.
func TestWorkloadWithoutPrompts(t *testing.T) {
	noPrompts := strings.Replace(base, "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", "{requests: 5, concurrency: 2}", 1)
	s, err := load(t, noPrompts)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.Total() != 5 || s.PromptsDigest.Count != 0 {
		t.Errorf("total %d, prompts digest %v", s.Workload.Total(), s.PromptsDigest)
	}
	fromRecord := strings.Replace(noPrompts, "requests: 5,", "requests: from-record,", 1)
	if s, err = load(t, fromRecord); err != nil || s.Workload.Total() != 0 || s.Workload.Requests != FromRecord {
		t.Fatalf("from-record: %v, total %v", err, s)
	}
	for _, c := range []struct{ name, yaml, want string }{
		{"digest", strings.Replace(noPrompts, "  throughput: {file: t.json, format: vllm}", "  throughput: {file: t.json, format: vllm}\n  activation: {role: server, pattern: 'a rank=(?P<rank>\\d+) c=(?P<count>\\d+) d=(?P<digest>\\w+) a=(?P<algorithm>\\S+)'}", 1) + "  - {digest: agree}\n", "needs workload.prompts"},
		{"count into a command", strings.Replace(fromRecord, "command: [cli, --out", "command: [cli, -n, '{{.Workload.Requests}}', --out", 1), "there is no count to give"},
		{"prompts into a command", strings.Replace(noPrompts, "command: [cli, --out", "command: [cli, -p, '{{.Workload.Prompts}}', --out", 1), "no prompts file"},
		{"activation count", strings.Replace(fromRecord, "  throughput: {file: t.json, format: vllm}", "  throughput: {file: t.json, format: vllm}\n  counters: {c: {role: server, pattern: 'c=(?P<rank>\\d+)'}}", 1) + "  - {counter: c, role: server, equals: requests}\n", "no count"},
	} {
		_, err := load(t, c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// Builds as arms: which binaries the arms run is the declared difference
// (the matched digest stays), that the arms are builds counts (it
// changes), and every arm declares one or none.
func TestBuildsAsArms(t *testing.T) {
	withBuilds := func(fast, slow string) string {
		return strings.Replace(strings.Replace(base, `fast: {env: {MODE: "1", PEER: "1"}}`, `fast: {env: {MODE: "1", PEER: "1"}, build: {binary: `+fast+`, source: a@1}}`, 1),
			`slow: {env: {MODE: "0", PEER: "1"}}`, `slow: {env: {MODE: "0", PEER: "1"}, build: {binary: `+slow+`}}`, 1)
	}
	one := matched(t, withBuilds("b1/srv", "b2/srv"))
	if other := matched(t, withBuilds("elsewhere/srv", "b3/srv")); other != one {
		t.Error("other build paths changed the matched digest")
	}
	if matched(t, base) == one {
		t.Error("declaring builds did not change the matched digest")
	}
	s, err := load(t, strings.Replace(withBuilds("b1/srv", "b2/srv"), "[srv, --rank", `["{{.Build}}", --rank`, 1))
	if err != nil {
		t.Fatal(err)
	}
	if d := s.TemplateData(Place{Arm: "fast"}); d.Build != filepath.Join(s.Dir, "b1/srv") {
		t.Errorf("{{.Build}} of fast = %q, want the scenario-relative binary made absolute", d.Build)
	}
	half := strings.Replace(withBuilds("b1/srv", "b2/srv"), `, build: {binary: b2/srv}`, "", 1)
	if _, err := load(t, half); err == nil || !strings.Contains(err.Error(), `arm "slow" declares no build, but other arms do`) {
		t.Errorf("one arm without a build: %v", err)
	}
	if _, err := load(t, strings.Replace(base, "[srv, --rank", `["{{.Build}}", --rank`, 1)); err == nil || !strings.Contains(err.Error(), "no arm declares one") {
		t.Errorf("{{.Build}} without builds: %v", err)
	}
	same := strings.Replace(withBuilds("b1/srv", "b2/srv"), `MODE: "0"`, `MODE: "1"`, 1)
	if _, err := load(t, same); err != nil {
		t.Errorf("arms with one env but two builds: %v", err)
	}
}

// A ports file that does not parse is an error naming it, for the run
// that allocates and for evidence that reads the ports back: neither
// allocates over, or misses, what the run recorded.
func TestPortsFileThatDoesNotParse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ports.json")
	if err := os.WriteFile(path, []byte(`{"db": 5432`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Ports{NewPorts(path), RecordedPorts(path)} {
		if _, err := p.Get("db"); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Get from a damaged ports file: %v", err)
		}
	}
	if err := os.WriteFile(path, []byte(`{"db": 5432}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if port, err := RecordedPorts(path).Get("db"); err != nil || port != 5432 {
		t.Fatalf("Get = %d, %v", port, err)
	}
}

// TestDeadlinesThroughAliases holds deadlines given through a YAML alias or
// merge key to what the file says, within the same bounds: the defaults
// used to replace them without a word.
func TestDeadlinesThroughAliases(t *testing.T) {
	cases := []struct {
		tail          string
		ready, client time.Duration
		err           string
	}{
		{"env: &d {ready: 7s}\ndeadlines: *d\n", 7 * time.Second, time.Duration(DefaultDeadlines.Client), ""},
		{"env: &d {ready: 7s}\ndeadlines: {<<: *d, client: 8s}\n", 7 * time.Second, 8 * time.Second, ""},
		{"env: &d {ready: 30h}\ndeadlines: *d\n", 0, 0, "deadline ready 30h0m0s: must be above 0 and at most 24h0m0s"},
	}
	for _, c := range cases {
		s, err := load(t, base+c.tail)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.tail, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.tail, err)
		case time.Duration(s.Deadlines.Ready) != c.ready || time.Duration(s.Deadlines.Client) != c.client:
			t.Errorf("%q: deadlines %+v, want ready %s, client %s", c.tail, s.Deadlines, c.ready, c.client)
		}
	}
}

// A prompts file that is not there is named as the scenario writes it and
// where it lies, with the closest name its directory holds: a reader
// whose working directory is not the scenario's saw a path beside "paths
// are relative to the scenario file" and no hint of the typo.
func TestMissingPromptsFileSaysWhereAndWhatIsNear(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"data", "scenarios"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "data"), "prompts-256.jsonl", "[1]\n")
	path := write(t, filepath.Join(dir, "scenarios"), "s.yaml", strings.Replace(base, "prompts.jsonl", "../data/prompts-265.jsonl", 1))
	_, err := Load(path)
	want := "prompts file ../data/prompts-265.jsonl (" + filepath.Join(dir, "data", "prompts-265.jsonl") + ") does not exist (paths are relative to the scenario file; did you mean ../data/prompts-256.jsonl?)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant it to hold %q", err, want)
	}
	path = write(t, filepath.Join(dir, "scenarios"), "t.yaml", strings.Replace(base, "prompts.jsonl", "../nowhere/p.jsonl", 1))
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "cannot be read either") {
		t.Errorf("a missing directory: %v", err)
	}
	// A scenario named relative to the working directory: the prompts
	// file is still said where it lies, absolute.
	t.Chdir(filepath.Join(dir, "scenarios"))
	want = "prompts file ../nowhere/p.jsonl (" + filepath.Join(dir, "nowhere", "p.jsonl") + ") does not exist"
	if _, err := Load("t.yaml"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a scenario given relative: %v\nwant it to hold %q", err, want)
	}
}
