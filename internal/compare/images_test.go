package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/rundir"
)

// TestTwoImagesUnderOneNameAreCensored: the arms' runs pinned one image
// name to two digests (it was rebuilt between them): censored, naming
// both; one digest throughout compares.
func TestTwoImagesUnderOneNameAreCensored(t *testing.T) {
	one, two := "sha256:"+strings.Repeat("1", 64), "sha256:"+strings.Repeat("2", 64)
	with := func(digests ...string) []Run {
		runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
		for i := range runs {
			d := digests[0]
			if runs[i].Evidence.Arm == "async" {
				d = digests[len(digests)-1]
			}
			runs[i].prov = &bundle.Provenance{Containers: []rundir.ContainerImage{{Role: "ctx", Runtime: "docker", Image: "sim:1", Digest: d}}}
		}
		return runs
	}
	r := Compare(with(one, two), Options{})
	if r.Verdict != Censored || !strings.Contains(codes(r), "image-mismatch") {
		t.Fatalf("two digests: %s %v", r.Verdict, r.Reasons)
	}
	if d := r.Reasons[0].Detail; !strings.Contains(d, one) || !strings.Contains(d, two) || !strings.Contains(d, "sim:1") {
		t.Errorf("%q does not name the image and both digests", d)
	}
	if r := Compare(with(one), Options{}); r.Verdict == Censored {
		t.Fatalf("one digest: %s %v", r.Verdict, r.Reasons)
	}
}

// An attached Deployment rolled to another image between two runs of one
// arm ran two systems in that arm: censored image-mismatch naming both
// images and the runs; the arms' own Deployments may run their own.
func TestAttachedDeploymentChangedBetweenRunsIsCensored(t *testing.T) {
	one, two := "docker.io/sim@sha256:"+strings.Repeat("1", 64), "docker.io/sim@sha256:"+strings.Repeat("2", 64)
	with := func(last string) []Run {
		runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
		for i := range runs {
			im := one
			if runs[i].Evidence.Arm == "async" {
				im = two // the treatment's deployment runs its own image
			}
			if i == len(runs)-1 {
				im = last
			}
			runs[i].Evidence.Attached = []evidence.AttachedProof{{Name: "server", Pods: []attachprobe.Pod{{Name: "p", Ready: true, Images: []string{im}}}}}
		}
		return runs
	}
	last := with(one)[len(with(one))-1].Evidence.Arm
	same := one
	if last == "async" {
		same = two
	}
	if r := Compare(with(same), Options{}); r.Verdict == Censored {
		t.Fatalf("each arm one image: %s %v", r.Verdict, r.Reasons)
	}
	other := "docker.io/sim@sha256:" + strings.Repeat("3", 64)
	r := Compare(with(other), Options{})
	if r.Verdict != Censored || !strings.Contains(codes(r), "image-mismatch") {
		t.Fatalf("a deployment rolled between runs: %s %v", r.Verdict, r.Reasons)
	}
	if d := r.Reasons[0].Detail; !strings.Contains(d, other) || !strings.Contains(d, same) || !strings.Contains(d, "attached server server of arm "+last) {
		t.Errorf("%q does not name the attached server, the arm and both images", d)
	}
}
