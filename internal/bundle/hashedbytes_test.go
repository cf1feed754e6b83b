package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRederivationReadsTheBytesHashed: the evidence is derived again from
// the bytes the files step hashed, never from the files opened again. A
// log, a record and a registration changed on disk after their hash (a
// writer racing the verifier) change nothing of what is derived: what
// passes is exactly what was hashed.
func TestRederivationReadsTheBytesHashed(t *testing.T) {
	signer, _ := newSigner(t)
	b := writeBundle(t, signer, 4)
	opts := VerifyOptions{SkipSignature: true}
	want, err := Verify(b, opts)
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{
		"ctx-1.log":              "mode rank=1 terminal=1\nsummary rank=1 commits=0\n",
		"throughput.json":        `{"num_prompts": 4, "completed": 1, "failed": 3, "output_throughput": 1.5}`,
		"coord/ranks/ctx-0.json": `{"role": "ctx", "rank": 0, "host": "elsewhere"}`,
	}
	c := newDirCheck(b, opts, &scenarioCache{parsed: map[scenarioKey]parsedScenario{}})
	for _, s := range c.steps() {
		if err := s.run(); err != nil {
			t.Fatalf("step %s with files changed after their hash: %v", s.name, err)
		}
		if s.name != StepFiles {
			continue
		}
		for rel, data := range changed {
			if _, ok := c.kept[rel]; !ok {
				t.Fatalf("%s was not kept from its hash", rel)
			}
			if err := os.WriteFile(filepath.Join(b, rel), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := firstDifference(want.Evidence, c.verified().Evidence); d != "" {
		t.Errorf("the evidence derived after the files changed differs at %s", d)
	}
	if _, err := Verify(b, opts); err == nil || !strings.Contains(err.Error(), "was changed") {
		t.Errorf("the changed bundle verified again: %v", err)
	}
}

// TestHashRefusesWhatIsNoRegularFile: a FIFO or a link in place of a
// bundle's file after the listing checked it (a swap racing the verifier)
// is refused when it is opened, never followed nor waited on.
func TestHashRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ctx-0.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	target := filepath.Join(dir, "elsewhere.json")
	os.WriteFile(target, []byte("{}"), 0o644)
	link := filepath.Join(dir, EvidenceFile)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	c := newDirCheck(dir, VerifyOptions{}, nil)
	done := make(chan error, 2)
	go func() {
		_, err := c.hash("ctx-0.log", fileAt{dir: unix.AT_FDCWD, name: fifo, path: fifo}, true)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a FIFO hashed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("hashing a FIFO waits for a writer")
	}
	if _, err := c.hash(EvidenceFile, fileAt{dir: unix.AT_FDCWD, name: link, path: link}, true); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link hashed: %v", err)
	}
	if _, ok := c.kept[EvidenceFile]; ok {
		t.Error("a link's target was kept")
	}
}

// TestReadAllReadsToTheEndWhateverTheSize: a file read whole is read to
// its end whatever size its stat said: longer (it grew since) or shorter
// (it shrank), and a file of exactly that size ends at its first short
// read.
func TestReadAllReadsToTheEndWhateverTheSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w-0.log")
	want := strings.Repeat("line of a log\n", 10000)
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{0, 1, 13, int64(len(want)) - 1, int64(len(want)), int64(len(want)) + 1, 4 * int64(len(want))} {
		f, _, err := openRegular(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(f, nil, size)
		f.close()
		if err != nil || string(got) != want {
			t.Errorf("size %d: read %d bytes of %d (%v)", size, len(got), len(want), err)
		}
	}
}

// TestUncheckedSignatureIsOnlyLookedFor: when the signature is not
// checked (SkipSignature), neither it nor the envelope is read, but
// whether the bundle is signed is still said, and either one as a
// symbolic link is still refused by the files step.
func TestUncheckedSignatureIsOnlyLookedFor(t *testing.T) {
	signer, _ := newSigner(t)
	b := writeBundle(t, signer, 4)
	opts := VerifyOptions{SkipSignature: true}
	if v, err := Verify(b, opts); err != nil || v.Unsigned {
		t.Fatalf("signed bundle: %+v, %v", v, err)
	}
	unsigned := copyTree(t, b)
	os.Remove(filepath.Join(unsigned, SignatureFile))
	if v, err := Verify(unsigned, opts); err != nil || !v.Unsigned {
		t.Fatalf("unsigned bundle: %+v, %v", v, err)
	}
	for _, name := range []string{SignatureFile, DSSEFile} {
		linked := copyTree(t, b)
		target := filepath.Join(t.TempDir(), name)
		os.Rename(filepath.Join(linked, name), target)
		if err := os.Symlink(target, filepath.Join(linked, name)); err != nil {
			t.Fatal(err)
		}
		var ve *VerifyError
		if _, err := Verify(linked, opts); !errors.As(err, &ve) || ve.Step != StepFiles || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s a symbolic link: %v", name, err)
		}
	}
}
