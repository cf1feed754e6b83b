package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
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
