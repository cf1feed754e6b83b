package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A file read by one read shorter than the buffer is whole without a
// stat; one that fills it (or gives nothing) is stated and read on. Every
// size around the buffer's is hashed and kept whole, and a device that
// never ends is refused as no regular file, not read for ever.
func TestHashReadsEverySizeWholeAndRefusesADevice(t *testing.T) {
	dir := t.TempDir()
	bufLen := len(*hashBuffers.Get().(*[]byte))
	for _, size := range []int{0, 1, bufLen - 1, bufLen, bufLen + 1, 3*bufLen + 7} {
		data := []byte(strings.Repeat("x", size))
		path := filepath.Join(dir, "w-0.log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := newDirCheck(dir, VerifyOptions{}, nil)
		got, err := c.hash("w-0.log", fileAt{dir: unix.AT_FDCWD, name: path, path: path}, true)
		sum := sha256.Sum256(data)
		if err != nil || got != hex.EncodeToString(sum[:]) {
			t.Errorf("%d bytes: digest %s (%v), want %x", size, got, err, sum)
		}
		if kept, ok := c.kept["w-0.log"]; !ok || string(kept) != string(data) {
			t.Errorf("%d bytes: kept %d bytes (%v)", size, len(kept), ok)
		}
		if size > 0 {
			if whole, err := readRegular(path); err != nil || string(whole) != string(data) {
				t.Errorf("%d bytes: readRegular read %d (%v)", size, len(whole), err)
			}
		}
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	c := newDirCheck(dir, VerifyOptions{}, nil)
	if _, err := c.hash("zero", fileAt{dir: unix.AT_FDCWD, name: "/dev/zero", path: "/dev/zero"}, true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a device hashed: %v", err)
	}
	if _, err := readRegular("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a device read: %v", err)
	}
}

// A directory of the bundle is opened, to be listed and its files opened
// by name, never through a symbolic link; the bundle's own path may be
// one.
func TestOpenDirFollowsNoLinkInTheBundle(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "coord")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "linked")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	at := fileAt{dir: unix.AT_FDCWD, name: link, path: link}
	if f, err := openDir(at, false); err == nil {
		f.Close()
		t.Error("a linked directory in the bundle was opened")
	}
	f, err := openDir(at, true)
	if err != nil {
		t.Fatalf("the bundle's path through a link: %v", err)
	}
	f.Close()
}
