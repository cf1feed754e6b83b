package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/reason"
)

// copiesOf unpacks the committed bundle archive and copies it n times,
// each copy a bundle directory of its own.
func copiesOf(t *testing.T, archive string, n int) []string {
	t.Helper()
	first := filepath.Join(t.TempDir(), "0")
	if err := bundle.UnpackVerified(archive, first, bundle.VerifyOptions{SkipSignature: true, AllowUnsigned: true}); err != nil {
		t.Fatal(err)
	}
	dirs := []string{first}
	for i := 1; i < n; i++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := os.CopyFS(dir, os.DirFS(first)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// rewriteScenario replaces old with new in the bundle's scenario and
// writes a manifest that holds the new file's digest, unsigned: a bundle
// whose files all match its manifest, so only what its scenario derives
// can refuse it.
func rewriteScenario(t *testing.T, dir, old, new string) {
	t.Helper()
	path := filepath.Join(dir, bundle.ScenarioFile)
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s holds no %q (%v)", path, old, err)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := bundle.ParseStatement(must(os.ReadFile(filepath.Join(dir, bundle.ManifestFile))))
	if err != nil {
		t.Fatal(err)
	}
	st.PredicateType = bundle.PredicateType // Statement is written in its spelling
	for i, s := range st.Subject {
		st.Subject[i].Digest[bundle.DigestAlgorithm] = must(filehash.SHA256(filepath.Join(dir, s.Name)))
	}
	if err := os.WriteFile(filepath.Join(dir, bundle.ManifestFile), must(json.MarshalIndent(st, "", "  ")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bundle.SignatureFile, bundle.DSSEFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestEveryCopyIsVerifiedOnItsOwnBytes: the runs of a comparison share
// one parse of their scenario, but never its verification. Among copies
// of one bundle, loaded together on every core, a copy with a changed log
// is refused; a copy whose scenario says another thing (its manifest
// rewritten to match) is refused by its own evidence re-derived with its
// own scenario, not passed on the parse of the others'; a copy whose
// scenario differs only by a comment is its own parse and passes.
func TestEveryCopyIsVerifiedOnItsOwnBytes(t *testing.T) {
	// Eight copies under go test -short, not 24: unpacking them was most
	// of this package's quick-loop CPU; the three changed ones still sit
	// among copies that verify.
	n := 24
	if testing.Short() {
		n = 8
	}
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", n)
	flipped, renamed, commented := dirs[7*n/24], dirs[13*n/24], dirs[19*n/24]
	log := filepath.Join(flipped, "nccl-1.log")
	data := must(os.ReadFile(log))
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(log, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rewriteScenario(t, renamed, "name: nccl-allreduce", "name: nccl-allreduce-2")
	rewriteScenario(t, commented, "name: nccl-allreduce", "# a comment\nname: nccl-allreduce")
	runs, cleanup, err := LoadRuns(dirs, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil || len(runs) != len(dirs) {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	want := map[string]string{flipped: "nccl-1.log was changed", renamed: "re-derived"}
	for i, run := range runs {
		var invalid []string
		for _, rs := range run.Censor {
			if rs.Code == reason.BundleInvalid {
				invalid = append(invalid, rs.Detail)
			}
		}
		switch why, refused := want[dirs[i]]; {
		case refused && (len(invalid) != 1 || !strings.Contains(invalid[0], why)):
			t.Errorf("copy %d: censored %q, want bundle-invalid with %q", i, invalid, why)
		case !refused && len(invalid) > 0:
			t.Errorf("copy %d: censored %q, want it verified", i, invalid)
		}
	}
}

// TestLoadingSaysWhatItFoundOfEachBundle: what the checks after loading
// ask of a run's bundle (is it one, is it signed) is what its
// verification found, the disk asked nothing more: a copy without its
// signature is unsigned, one without its manifest is no bundle (censored
// for that), one whose manifest a stock in-toto verifier refuses (a key
// given twice) fails verification at its statement, and the signed copy
// stays counted signed after its signature is removed from the disk.
func TestLoadingSaysWhatItFoundOfEachBundle(t *testing.T) {
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", 4)
	signed, unsigned, gone, twice := dirs[0], dirs[1], dirs[2], dirs[3]
	must(0, os.Remove(filepath.Join(unsigned, bundle.SignatureFile)))
	must(0, os.Remove(filepath.Join(gone, bundle.ManifestFile)))
	manifest := filepath.Join(twice, bundle.ManifestFile)
	data := must(os.ReadFile(manifest))
	must(0, os.WriteFile(manifest, bytes.Replace(data, []byte(`"_type":`), []byte(`"_type": "x", "_type":`), 1), 0o644))
	runs, cleanup, err := LoadRuns(dirs, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil || len(runs) != len(dirs) {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	must(0, os.Remove(filepath.Join(signed, bundle.SignatureFile)))
	for i, want := range []bool{true, true, false, true} {
		if runs[i].IsBundle() != want {
			t.Errorf("run %d: a bundle %v, want %v", i, runs[i].IsBundle(), want)
		}
	}
	censored := func(run Run, what string) bool {
		return slices.ContainsFunc(run.Censor, func(rs reason.Reason) bool {
			return rs.Code == reason.BundleInvalid && strings.Contains(rs.Detail, what)
		})
	}
	if !censored(runs[2], "has no bundle") || !censored(runs[3], "given twice") || censored(runs[0], "") || censored(runs[1], "") {
		t.Errorf("censored: %v", [][]reason.Reason{runs[0].Censor, runs[1].Censor, runs[2].Censor, runs[3].Censor})
	}
	want := []string{"1 run(s) are not bundles", "1 run(s) are unsigned", "2 run(s) are signed but their signatures were not checked"}
	if got := unverified(runs, Options{}); len(got) != 3 || !strings.HasPrefix(got[0], want[0]) || !strings.HasPrefix(got[1], want[1]) || !strings.HasPrefix(got[2], want[2]) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

// TestPathsResolvedTogetherKeepTheirOrder: the paths are resolved on
// every core, but their runs come back in the paths' order, and of two
// paths that hold no run the error names the first.
func TestPathsResolvedTogetherKeepTheirOrder(t *testing.T) {
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", 6)
	reversed := slices.Clone(dirs)
	slices.Reverse(reversed)
	runs, cleanup, err := LoadRuns(reversed, bundle.VerifyOptions{})
	cleanup()
	if err != nil || len(runs) != len(dirs) {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	for i, run := range runs {
		if run.Path != reversed[i] {
			t.Errorf("run %d is %s, want %s", i, run.Path, reversed[i])
		}
	}
	first, second := t.TempDir(), t.TempDir()
	_, cleanup, err = LoadRuns(append(slices.Clone(dirs[:3]), first, second), bundle.VerifyOptions{})
	cleanup()
	if err == nil || !strings.Contains(err.Error(), first) || strings.Contains(err.Error(), second) {
		t.Errorf("two paths holding no run: %v, want an error naming %s", err, first)
	}
}
