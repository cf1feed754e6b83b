package rundir

import "testing"

// TestPlanDigestOfAPlanWithoutID: a plan made before plans had an ID keeps
// the digest its runs' bundles signed (the committed NCCL campaign's), and
// an ID, once there, is part of the digest.
func TestPlanDigestOfAPlanWithoutID(t *testing.T) {
	var p Plan
	if err := ReadJSON("../../testdata/nccl/plan.json", &p); err != nil {
		t.Fatal(err)
	}
	const signed = "02f36843fc5a60e9f838342c03aed6359633ef6a1211437573e54b9d6aee8861" // 1-ring.tar.gz's provenance
	if p.ID != "" || p.Ref(1).PlanDigest != signed {
		t.Fatalf("the older plan (ID %q): digest %s, want the signed %s", p.ID, p.Ref(1).PlanDigest, signed)
	}
	p.ID = "one"
	one := p.Ref(1).PlanDigest
	p.ID = "two"
	if one == signed || one == p.Ref(1).PlanDigest {
		t.Errorf("the ID is not in the digest: %s, %s", one, p.Ref(1).PlanDigest)
	}
}
