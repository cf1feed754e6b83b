// Package fuzzseed seeds Go fuzz targets with the repository's real files,
// so every target starts from inputs the real tools wrote.
package fuzzseed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/ssh"
)

// Files adds the content of every file matching each glob pattern (relative
// to the package directory, as go test runs) to f's seed corpus. A pattern
// that matches no file fails the target: a seed set that silently shrank to
// nothing would still pass. It returns the contents, in order, for targets
// that add them with other arguments.
func Files(f *testing.F, patterns ...string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			f.Fatalf("seed pattern %q: %v", p, err)
		}
		n := 0
		for _, m := range matches {
			if st, err := os.Stat(m); err != nil || !st.Mode().IsRegular() {
				continue
			}
			data, err := os.ReadFile(m)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, data)
			n++
		}
		if n == 0 {
			f.Fatalf("seed pattern %q matches no file", p)
		}
	}
	return out
}

// Add is Files for targets that take the file's bytes alone.
func Add(f *testing.F, patterns ...string) {
	f.Helper()
	for _, data := range Files(f, patterns...) {
		f.Add(data)
	}
}

// Tars is the uncompressed tar stream of every .tar.gz file matching
// pattern: an archive's fuzzer mutates the tar, not the gzip around it,
// whose checksum would refuse nearly every mutation.
func Tars(f *testing.F, pattern string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, gz := range Files(f, pattern) {
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			f.Fatalf("%s: %v", pattern, err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			f.Fatalf("%s: %v", pattern, err)
		}
		out = append(out, data)
	}
	return out
}

// Members is the content of the file named name in every archive matching
// pattern that holds one; none is a failure, as for Files.
func Members(f *testing.F, pattern, name string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, data := range Tars(f, pattern) {
		tr := tar.NewReader(bytes.NewReader(data))
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Fatalf("%s: %v", pattern, err)
			}
			if hdr.Name == name {
				member, err := io.ReadAll(tr)
				if err != nil {
					f.Fatalf("%s: %s: %v", pattern, name, err)
				}
				out = append(out, member)
			}
		}
	}
	if len(out) == 0 {
		f.Fatalf("no archive matching %q holds %s", pattern, name)
	}
	return out
}

// Signer is a fixed ed25519 key: what a target signs with it is the same
// on every run, so it can be a seed and a regression input.
func Signer(f *testing.F) ssh.Signer {
	f.Helper()
	s, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)))
	if err != nil {
		f.Fatal(err)
	}
	return s
}
