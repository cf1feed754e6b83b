package bundle

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// shortReads makes every read of a bundle's file return at most n bytes,
// as a FUSE or network file system may before the end of a file, until
// the test ends. Not for parallel tests: the read is the package's.
func shortReads(t *testing.T, n int) {
	t.Helper()
	sysRead = func(fd int, p []byte) (int, error) { return syscall.Read(fd, p[:min(len(p), n)]) }
	t.Cleanup(func() { sysRead = syscall.Read })
}

// A bundle verifies on a file system whose reads return less than asked
// for before a file's end: no file is cut at its first short read (the
// manifest and signature too), and its evidence is derived again from
// the whole of each; a changed file is still refused.
func TestVerifyReadsOnAfterAShortRead(t *testing.T) {
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"}
	shortReads(t, 7)
	v, err := Verify(b, opts)
	if err != nil {
		t.Fatalf("a bundle read 7 bytes at a time: %v", err)
	}
	if !v.Evidence.Accepted || v.Signer != "ci@x" {
		t.Fatalf("verified %+v", v)
	}
	changed := copyTree(t, b)
	flipByte(t, filepath.Join(changed, "ctx-1.log"))
	if _, err := Verify(changed, opts); err == nil || !strings.Contains(err.Error(), "ctx-1.log was changed") {
		t.Fatalf("a changed log read 7 bytes at a time: %v", err)
	}
}
