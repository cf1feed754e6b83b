package campaign

import (
	"testing"

	"github.com/abbench/abbench/internal/scenarios"
)

// TestPlansOfOneSeedAreTwoCampaigns: two plans of one scenario made with
// one seed are two campaigns: their runs carry other plan digests, so
// the stages of one never pass for the other's. Before, the digest held
// the seed and the runs alone, and the two plans were one campaign.
func TestPlansOfOneSeedAreTwoCampaigns(t *testing.T) {
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan := func() *Result {
		r, err := Plan(&Config{Scenario: s, Launcher: "local", Stages: true, Repeat: 3, Order: OrderABBA, Seed: 7, Out: t.TempDir(), Self: "abbench"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := plan(), plan()
	if a.Plan.Seed != b.Plan.Seed || len(a.Plan.Runs) != len(b.Plan.Runs) || a.Plan.Runs[1].Arm != b.Plan.Runs[1].Arm {
		t.Fatalf("the two plans differ in their design: %+v, %+v", a.Plan.Runs, b.Plan.Runs)
	}
	if a.Plan.Ref(2).PlanDigest == b.Plan.Ref(2).PlanDigest {
		t.Errorf("two plans of seed 7 share the plan digest %.12s: their runs would be one campaign's", a.Plan.Ref(2).PlanDigest)
	}
}
