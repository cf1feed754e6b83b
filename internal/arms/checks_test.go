package arms

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

func TestRegistrationsHoldEachRoleToTheArm(t *testing.T) {
	c := unitController(t, unitScenario)
	register(t, c, "server", 0, map[string]*string{"MODE": ptr("async")})
	register(t, c, "server", 1, map[string]*string{"MODE": ptr("block")}) // the other arm's value
	register(t, c, "helper", 0, map[string]*string{"MODE": ptr("async")}) // a role without arm_env
	got := reasonsByRank(c.checkRegistrations("before the client", false))
	want := map[string][]reason.Code{"server-1": {reason.ArmEnvMissing}, "helper-0": {reason.ArmEnvLeak}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reasons %v, want %v", got, want)
	}
	if got := reasonsByRank(c.checkRegistrations("by the client", true)); fmt.Sprint(got) != fmt.Sprint(map[string][]reason.Code{"client-0": {reason.RankMissing}}) {
		t.Fatalf("clients checked: %v, want only the unregistered client", got)
	}
	register(t, c, "server", 1, map[string]*string{"MODE": nil})
	if err := os.Remove(rundir.RegistrationPath(c.coord, "helper", 0)); err != nil {
		t.Fatal(err)
	}
	rs := c.checkRegistrations("before the client", false)
	got = reasonsByRank(rs)
	want = map[string][]reason.Code{"server-1": {reason.ArmEnvMissing}, "helper-0": {reason.RankMissing}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reasons %v, want %v", got, want)
	}
	if !strings.Contains(fmt.Sprint(rs), "did not receive MODE") || !strings.Contains(fmt.Sprint(rs), "never registered before the client") {
		t.Fatalf("details do not say what is wrong: %v", rs)
	}
}

func TestBuildCheckTellsAnotherArmsBuildFromAChangedOne(t *testing.T) {
	c := unitController(t, unitScenario)
	c.status.Builds = []rundir.BuildFact{{Arm: "a", Binary: "/opt/a/server", SHA256: "aaaa"}, {Arm: "b", Binary: "/opt/b/server", SHA256: "bbbb"}}
	server := c.s.Role("server")
	cases := []struct {
		exe, command string
		ranOwn       bool
		detail       string // of the build-mismatch, empty for none
	}{
		{"aaaa", "/opt/a/server", true, ""},
		{"bbbb", "/opt/b/server", false, "ran arm b's build /opt/b/server"},
		{"cccc", "/opt/a/server", false, "the build changed during the run"},
		{"cccc", "/bin/sh", false, ""},   // another program: not a build of either arm
		{"", "/opt/b/server", false, ""}, // not hashed: the arms are not builds
	}
	for _, tc := range cases {
		reg := rundir.Registration{ExeSHA256: tc.exe, Command: []string{tc.command}}
		ranOwn, rs := c.checkBuild(server, 0, &reg)
		if ranOwn != tc.ranOwn {
			t.Errorf("%s %s: ran the arm's build %v, want %v", tc.exe, tc.command, ranOwn, tc.ranOwn)
		}
		switch {
		case tc.detail == "" && len(rs) > 0:
			t.Errorf("%s %s: reasons %v, want none", tc.exe, tc.command, rs)
		case tc.detail != "" && (len(rs) != 1 || rs[0].Code != reason.BuildMismatch || !strings.Contains(rs[0].Detail, tc.detail)):
			t.Errorf("%s %s: reasons %v, want a build-mismatch saying %q", tc.exe, tc.command, rs, tc.detail)
		}
	}
}

func TestModeCheckReadsOnlyThisAttemptsLines(t *testing.T) {
	c := unitController(t, unitScenario)
	r0 := addRank(t, c, "server", 0, "mode rank=0 MODE=async\n") // a previous attempt's line
	r1 := addRank(t, c, "server", 1, "")
	addRank(t, c, "helper", 0, "mode rank=0 MODE=block\n") // not the mode role
	logs(t, r1, "mode rank=1 MODE=block\n")
	modeReasons := func() []reason.Reason {
		var re *reason.Error
		if err := c.checkModes("before the client"); err != nil && !errors.As(err, &re) {
			t.Fatalf("checkModes: %v", err)
		} else if err == nil {
			return nil
		}
		return re.Reasons
	}
	rs := modeReasons()
	if got := fmt.Sprint(reasonsByRank(rs)); got != fmt.Sprint(map[string][]reason.Code{"server-0": {reason.ArmModeMismatch}, "server-1": {reason.ArmModeMismatch}}) {
		t.Fatalf("reasons %s", got)
	}
	if !strings.Contains(rs[0].Detail, "logged no mode line") || !strings.Contains(rs[1].Detail, "logs MODE=block") {
		t.Fatalf("details %v", rs)
	}
	logs(t, r0, "mode rank=0 MODE=async\n")
	logs(t, r1, "mode rank=1 MODE=async\n") // the last mode line counts
	if rs := modeReasons(); len(rs) > 0 {
		t.Fatalf("modes that agree now: %v", rs)
	}
	logs(t, r1, "mode rank=1 MODE=block\n")
	if rs := modeReasons(); len(rs) != 1 || rs[0].Role != "server" || *rs[0].Rank != 1 {
		t.Fatalf("a mode that changed back: %v", rs)
	}
}
