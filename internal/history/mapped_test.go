package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A store cut short under an add's mapping (by a writer that ignores the
// lock) is an error naming the store, not a crash.
func TestStoreCutUnderTheMappingIsAnError(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	writeFile(t, store, strings.Repeat(lineOf(t, runEntry("a", 1)), 100))
	f, err := os.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, release, err := mapStore(f)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(store, 0); err != nil {
		t.Fatal(err)
	}
	var last byte
	err = readMapped(store, func() error { last = data[len(data)-1]; return nil })
	if err == nil || !strings.Contains(err.Error(), store+" was cut short while it was read") {
		t.Fatalf("reading past the cut: %v (read %q)", err, last)
	}
}

// An empty store maps to no bytes (mmap refuses a length of 0).
func TestEmptyStoreMapsToNothing(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	writeFile(t, store, "")
	f, err := os.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, release, err := mapStore(f); err != nil || len(data) != 0 {
		t.Fatalf("mapStore of an empty store: %d bytes, %v", len(data), err)
	} else {
		release()
	}
}

// A file that cannot be mapped (sysfs maps none) is read instead.
func TestUnmappableStoreIsRead(t *testing.T) {
	const unmappable = "/sys/devices/system/cpu/online"
	want, err := os.ReadFile(unmappable)
	if err != nil {
		t.Skipf("no %s here: %v", unmappable, err)
	}
	f, err := os.Open(unmappable)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, release, err := mapStore(f)
	if err != nil || string(data) != string(want) {
		t.Fatalf("mapStore = %q, %v; want the file read, %q", data, err, want)
	}
	release()
}
