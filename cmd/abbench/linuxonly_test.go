package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// On darwin the commands that launch runs refuse with exit 2 before
// touching anything; the ones a reviewer uses still work.
func TestLaunchingCommandsNeedLinux(t *testing.T) {
	defer func(os string) { launchOS = os }(launchOS)
	launchOS = "darwin"
	out := t.TempDir()
	for _, args := range [][]string{
		// Neither reaches its scenario: a missing one, an unknown arm.
		{"run", "missing.yaml", "--repeat", "1", "--out", out},
		{"arm", "../../scenarios/quickstart.yaml", "--arm", "nope", "--out", out},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "abbench "+args[0]+": runs need Linux (this is darwin/") {
			t.Errorf("%v: stderr %q does not say runs need Linux", args, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"validate", "../../scenarios/quickstart.yaml"}, &stdout, &stderr); code != 0 {
		t.Errorf("validate on darwin: exit %d (stderr %q)", code, stderr.String())
	}
}
