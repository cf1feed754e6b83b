package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/termwidth"
)

// A config-mismatch names the keys the two runs' scenarios differ in, as
// far as the matched digest sees them: not the description, the prompts
// file's path or the arms' env values. Before, it said only that the
// matched digests differed.
func TestScenarioDiffNamesTheKeysThatDiffer(t *testing.T) {
	write := func(yaml string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a := write("name: s\ndescription: one\narms:\n  a: {env: {X: \"1\"}}\n  b: {env: {X: \"0\"}}\nworkload: {prompts: p.jsonl, requests: 128, concurrency: 8}\nroles:\n  - {name: r, command: [x, --n, \"1\"]}\n")
	b := write("name: s\ndescription: two\narms:\n  a: {env: {X: \"2\"}}\n  b: {env: {X: \"3\"}}\nworkload: {prompts: ../p.jsonl, requests: 256, concurrency: 8}\nroles:\n  - {name: r, command: [x, --n, \"2\"]}\n")
	if got, want := scenarioDiff(a, b), "; their scenarios differ in roles.0.command.2 1 against 2, workload.requests 128 against 256"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := scenarioDiff(a, a); got != "" {
		t.Errorf("a scenario against itself: %q", got)
	}
	if got := scenarioDiff(a, t.TempDir()); got != "" {
		t.Errorf("a run without its scenario: %q", got)
	}
}

// The workload line of a multiset digest says the command that gives it:
// abbench digest FILE gives the ordered one, and a newcomer could not
// match the two.
func TestMultisetWorkloadSaysItsCommand(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {110, 111, 109}}), Options{Effect: 1})
	for _, alg := range []digest.Algorithm{digest.TokensSorted, digest.TokensOrdered} {
		r.Workload = &digest.Digest{Algorithm: alg, Count: 256, Hex: strings.Repeat("ab", 32)}
		var b strings.Builder
		if err := NewReport(r).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(b.String(), "abbench digest --algorithm "+string(digest.TokensSorted)+" FILE")
		if said != alg.Sorted() {
			t.Errorf("%s: the command said %v:\n%s", alg, said, b.String())
		}
	}
}

// At 80 columns a digest too long for its line is cut to its first 12
// hex digits, never wrapped across lines (a digest in two pieces can be
// neither copied nor read against another); without a width it is whole.
func TestWorkloadDigestIsNeverWrapped(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {110, 111, 109}}), Options{Effect: 1})
	hex := strings.Repeat("0123456789abcdef", 4)
	r.Workload = &digest.Digest{Algorithm: digest.TokensSorted, Count: 256, Hex: hex}
	for _, cols := range []int{0, 80} {
		var b strings.Builder
		if err := NewReport(r).WriteText(termwidth.NewWriter(&b, cols)); err != nil {
			t.Fatal(err)
		}
		want := "workload: " + r.Workload.String() + "\n"
		if cols > 0 {
			want = fmt.Sprintf("workload: %s:256:0123456789ab...\n", digest.TokensSorted)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("at %d columns no line %q:\n%s", cols, want, b.String())
		}
	}
}

// A scenario that names the ranks' per-prompt records is not told to
// name them: a run that left none did so for its own reasons.
func TestNamesActivationRecordsReadsTheBundlesScenario(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte("name: s\nevidence:\n  activation:\n    role: ctx\n    records: 'activation-{{.Rank}}.records'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !namesActivationRecords(dir) || namesActivationRecords(t.TempDir()) {
		t.Error("the records named in the scenario not read, or read where there is no scenario")
	}
}

// An arm whose planned runs never started (the campaign stopped early)
// is said by those runs' run-missing, which says why, not by an
// arm-missing asking whether its CI stage ran; an arm that was simply
// not given still is.
func TestArmOfRunsThatNeverRanIsSaidByTheirRunMissing(t *testing.T) {
	async := runsOf(map[string][]float64{"blocking": {100, 101}, "async": {110, 111}})
	var given []Run
	for _, r := range async {
		if r.Evidence.Arm == "async" {
			given = append(given, r)
		}
	}
	neverRan := Run{Path: "runs/2-blocking", NotRun: 2, NotRunArm: "blocking",
		Censor: []reason.Reason{reason.New(reason.RunMissing, "run 2 (arm blocking) of the plan: it never ran: a campaign is compared whole")}}
	r := Compare(append(slices.Clone(given), neverRan), Options{Effect: 1})
	var stage, runMissing bool
	for _, rs := range r.Reasons {
		stage = stage || strings.Contains(rs.Detail, "was its stage run?") || strings.Contains(rs.Detail, "the baseline arm blocking has no run")
		runMissing = runMissing || rs.Code == reason.RunMissing
	}
	if r.Verdict != Censored || stage || !runMissing {
		t.Errorf("verdict %s, reasons %v: want censored by run-missing, with no arm-missing for the arm that never ran", r.Verdict, r.Reasons)
	}
	r = Compare(given, Options{Effect: 1})
	stage = false
	for _, rs := range r.Reasons {
		stage = stage || strings.Contains(rs.Detail, "was its stage run?")
	}
	if !stage {
		t.Errorf("an arm not given at all: reasons %v, want its arm-missing", r.Reasons)
	}
}

// A campaign that stopped at its first run (a rank's program not found)
// has that run's reason as its one root cause: the runs that then never
// started and the arm they leave without a run are its consequences, not
// causes listed beside it.
func TestRunsAnEarlyStopLeftUndoneFollowItsCause(t *testing.T) {
	var first Run
	for _, r := range runsOf(map[string][]float64{"blocking": {100}, "async": {110}}) {
		if r.Evidence.Arm == "async" {
			first = r
		}
	}
	first.Evidence.Accepted = false
	first.Evidence.Reasons = []reason.Reason{reason.New(reason.RankExited, "ctx rank 0 exited with status 127").At("async", "ctx", 0)}
	neverRan := Run{Path: "runs/2-blocking", NotRun: 2, NotRunArm: "blocking",
		Censor: []reason.Reason{reason.New(reason.RunMissing, "run 2 (arm blocking) of the plan: it never ran (the campaign stopped or was stopped before it): a campaign is compared whole")}}
	r := Compare([]Run{first, neverRan}, Options{Effect: 1})
	if r.Verdict != Censored || len(r.Reasons) != 1 || r.Reasons[0].Code != reason.RankExited {
		t.Fatalf("verdict %s, reasons %v: want censored by the rank's exit alone", r.Verdict, r.Reasons)
	}
	var held []reason.Code
	for _, c := range r.Reasons[0].Consequences {
		held = append(held, c.Code)
	}
	if !slices.Contains(held, reason.RunMissing) || !slices.Contains(held, reason.ArmMissing) {
		t.Errorf("consequences %v, want the run that never ran and the arm left without one", held)
	}
}

// A run without goodput (not one request met the slo) is censored saying
// so, and how to see how far the requests missed, not only "has no
// goodput".
func TestNoGoodputSaysWhy(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {100, 101}, "async": {110, 111}}), Options{Effect: 1, Metric: "goodput"})
	if r.Verdict != Censored || len(r.Reasons) == 0 || !strings.Contains(r.Reasons[0].Detail, "has no goodput: not one of its requests met every objective of the scenario's slo") {
		t.Fatalf("verdict %s, reasons %v", r.Verdict, r.Reasons)
	}
}
