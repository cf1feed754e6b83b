package rundir

import (
	"os"
	"strings"
	"testing"
)

// A campaign directory that cannot be listed does not conform: its names
// could not be held to the contract, so CheckCampaign says so rather than
// passing it.
func TestCheckCampaignSaysAnUnlistableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root lists any directory")
	}
	camp := t.TempDir()
	if err := WritePlan(camp, &Plan{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(camp, 0o300); err != nil { // plan.json can be read, the directory not listed
		t.Fatal(err)
	}
	defer os.Chmod(camp, 0o755)
	if err := CheckCampaign(camp); err == nil || !strings.Contains(err.Error(), camp) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("err %v, want the listing's error", err)
	}
}
