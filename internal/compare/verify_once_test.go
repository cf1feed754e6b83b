package compare

import (
	"errors"
	"os"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/sshsig"
)

// signersOf are the committed NCCL bundles' allowed signers, as compare
// --allowed-signers reads them.
func signersOf(t *testing.T) bundle.VerifyOptions {
	t.Helper()
	allowed, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	return bundle.VerifyOptions{AllowedSigners: allowed}
}

// swapIn replaces the bundle directory dir with a copy of from, as a
// writer racing the comparison would between two reads of it.
func swapIn(t *testing.T, dir, from string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// TestABundleSwappedAfterLoadingIsNotSignatureChecked: compare
// --allowed-signers reads each bundle once, its signature checked in the
// pass whose evidence is compared. A bundle that is unsigned when it is
// loaded (its files and evidence consistent, its scenario rewritten and
// its signature dropped) is refused, even when the signed bundle is put
// back in its place before the signatures are reported. Before, loading
// checked everything but the signature, and a second pass checked the
// signature of whatever the directory held then: the unsigned bundle's
// evidence was compared as signature-checked.
func TestABundleSwappedAfterLoadingIsNotSignatureChecked(t *testing.T) {
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", 3)
	genuine, forged, pristine := dirs[0], dirs[1], dirs[2]
	rewriteScenario(t, forged, "name: nccl-allreduce", "# not what was signed\nname: nccl-allreduce")
	vo := signersOf(t)
	runs, cleanup, err := LoadRuns([]string{genuine, forged}, vo)
	defer cleanup()
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	swapIn(t, forged, pristine) // the signed bundle back, after its evidence was read
	err = VerifyRuns(runs, vo)
	var refused *RunsRefused
	if !errors.As(err, &refused) || len(refused.Refusals) != 1 || refused.Refusals[0].Run != forged {
		t.Fatalf("err %v: want the bundle that was unsigned when loaded refused", err)
	}
	var ve *bundle.VerifyError
	if !errors.As(refused.Refusals[0], &ve) {
		t.Errorf("the refusal %v keeps no *bundle.VerifyError", refused.Refusals[0])
	}
}

// TestVerifyRunsReadsNoBundleAgain: the runs loaded with the allowed
// signers were verified then; reporting their signatures reads nothing
// (their directories may be gone), and the evidence compared is the very
// one their verification passed.
func TestVerifyRunsReadsNoBundleAgain(t *testing.T) {
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", 2)
	vo := signersOf(t)
	runs, cleanup, err := LoadRuns(dirs, vo)
	defer cleanup()
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := VerifyRuns(runs, vo); err != nil {
		t.Fatalf("the signed runs, their directories gone after loading: %v", err)
	}
	for i, run := range runs {
		if run.checked.err != nil || !run.checked.done || run.checked.with != vo || run.bundle != signedBundle {
			t.Errorf("run %d: loading's verification %+v, bundle %v: want signed, checked with the allowed signers", i, run.checked, run.bundle)
		}
	}
}

// TestRunsNotLoadedWithTheSignersAreVerifiedAndTakeTheVerifiedEvidence:
// a run loaded without the allowed signers is verified when its
// signature is asked for, and its evidence becomes the one that
// verification passed.
func TestRunsNotLoadedWithTheSignersAreVerifiedAndTakeTheVerifiedEvidence(t *testing.T) {
	dirs := copiesOf(t, "../../testdata/nccl/bundles/1-ring.tar.gz", 1)
	runs, cleanup, err := LoadRuns(dirs, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, err %v", len(runs), err)
	}
	loaded := runs[0].Evidence
	vo := signersOf(t)
	if err := VerifyRuns(runs, vo); err != nil {
		t.Fatal(err)
	}
	if runs[0].Evidence == loaded || runs[0].Evidence == nil || runs[0].Evidence.Token != loaded.Token || runs[0].checked.with != vo {
		t.Errorf("the run's evidence after its signature was checked: %p (loaded %p), checked %+v", runs[0].Evidence, loaded, runs[0].checked)
	}
}
