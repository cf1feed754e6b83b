package arms

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/rundir"
)

// Run hands over the controller host's facts as the controller collected
// them, whatever a rank writes into coord/machine.json meanwhile.
func TestRunHandsOverTheControllersOwnMachine(t *testing.T) {
	skipShortRun(t)
	s := serverScenario(t, `'sleep 0.3; echo "[{\"host\": \"$(hostname)\", \"cpuModel\": \"FORGED\"}]" > "$1/machine.json"; echo up; exec sleep 60', server, '{{.Coord}}'`)
	env := append(os.Environ(), "PATH="+simDir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	res, err := Run(context.Background(), s, "a", Options{Out: t.TempDir(), Self: os.Args[0], Inherited: env})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status.State != rundir.StateSucceeded {
		t.Fatalf("run %s: %s", res.Status.State, codes(res.Status))
	}
	forged, _ := os.ReadFile(filepath.Join(res.Status.Dir, "coord", "machine.json"))
	if !strings.Contains(string(forged), "FORGED") {
		t.Fatalf("the rank did not forge coord/machine.json: %s", forged)
	}
	host, _ := os.Hostname()
	want := machine.Collect(0)
	if m := res.Machine; m.CPUModel != want.CPUModel || m.Host != host || m.ReportedBy != machine.ByController || m.Cores < 1 {
		t.Errorf("Run handed over %+v (coord/machine.json: %s), want this host's own facts", m, forged)
	}
}
