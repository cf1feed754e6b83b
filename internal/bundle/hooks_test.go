package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// A run's hook output goes into its bundle whole, listed and hashed by
// the manifest: a changed byte of it fails verification.
func TestBundleKeepsTheHooksOutput(t *testing.T) {
	signer, pub := newSigner(t)
	dir, s, sb, ev, st := makeRun(t, 4)
	rel := rundir.HookLog("teardown", 0)
	out := "clocks reset\n"
	if err := os.MkdirAll(filepath.Join(dir, rundir.HooksDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	st.Hooks = append(st.Hooks, rundir.HookStatus{Kind: "teardown", Index: 0, Command: []string{"nvidia-smi", "-rgc"}, Log: rel})
	if err := rundir.WriteStatus(dir, st); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test", Signer: signer}, dest); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dest, rel)); err != nil || string(got) != out {
		t.Fatalf("bundled hook output %q (%v), want %q", got, err, out)
	}
	if scopes, err := ReadScopes(dest); err != nil || scopes[rel].Bytes != int64(len(out)) || scopes[rel].SHA256 == "" {
		t.Errorf("scopes.json of the hook's output: %+v (%v)", scopes[rel], err)
	}
	manifest, _ := os.ReadFile(filepath.Join(dest, ManifestFile))
	var m struct {
		Subject []struct{ Name string } `json:"subject"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil || !slices.ContainsFunc(m.Subject, func(s struct{ Name string }) bool { return s.Name == rel }) {
		t.Errorf("the manifest does not list %s (%v): %s", rel, err, manifest)
	}
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"}
	if _, err := Verify(dest, opts); err != nil {
		t.Fatal(err)
	}
	flipByte(t, filepath.Join(dest, rel))
	if _, err := Verify(dest, opts); err == nil {
		t.Fatal("a bundle whose hook output was changed verified")
	}
}
