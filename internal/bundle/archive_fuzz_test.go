package bundle

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/fuzzseed"
	"github.com/abbench/abbench/internal/sshsig"
)

// bundleTars are the real bundle archives' tar streams.
const bundleTars = "../../testdata/nccl/bundles/*.tar.gz"

// addArchiveSeeds adds the real bundles and hand-made hostile archives.
func addArchiveSeeds(f *testing.F) {
	for i, data := range fuzzseed.Tars(f, bundleTars) {
		// Under go test -short one real bundle, not all: each seed is
		// unpacked, its files made and removed, in every target, and the
		// real ones were most of the files this package's quick loop made.
		if testing.Short() && i > 0 {
			break
		}
		f.Add(data)
	}
	x := map[string][]byte{"a": []byte("x"), "../escape": []byte("x"), "/abs": []byte("x"), "d/f": []byte("y"), "link/pwned": []byte("x")}
	for _, entries := range [][]tar.Header{
		{{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, {Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755}, {Name: "d/f", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "../escape", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "/abs", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "link", Typeflag: tar.TypeSymlink, Linkname: ".."}, {Name: "link/pwned", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, {Name: "h", Typeflag: tar.TypeLink, Linkname: "a"}},
		{{Name: "dev", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}},
		{{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}, {Name: "a", Typeflag: tar.TypeReg, Mode: 0o644}},
		{{Name: "a", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 20}},
	} {
		f.Add(tarOf(entries, x))
	}
}

// tarEntry is one entry of a tar stream as archive/tar reads it.
type tarEntry struct {
	hdr  *tar.Header
	body []byte
}

// readTar is every entry archive/tar reads from data, and whether it read
// to the end without an error.
func readTar(data []byte) ([]tarEntry, bool) {
	var out []tarEntry
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, true
		}
		if err != nil {
			return out, false
		}
		body, err := io.ReadAll(tr)
		out = append(out, tarEntry{hdr, body})
		if err != nil {
			return out, false
		}
	}
}

// unpackInBox unpacks data gzip'd with unpack into box/dest, and checks
// that nothing appeared beside dest (nor beside box, where the archive
// lies) and that dest holds only regular files and directories. It
// returns dest's files with their contents, and unpack's error.
func unpackInBox(t *testing.T, data []byte, unpack func(archive, dest string) error) (map[string][]byte, error) {
	t.Helper()
	tmp := t.TempDir()
	archive := gzipFile(t, tmp, data)
	box := filepath.Join(tmp, "box")
	if err := os.Mkdir(box, 0o755); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(box, "dest")
	uerr := unpack(archive, dest)
	for dir, want := range map[string][]string{tmp: {"a.tar.gz", "box"}, box: {"dest"}} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !slices.Contains(want, e.Name()) {
				t.Fatalf("%s appeared outside the target directory (unpack: %v)", e.Name(), uerr)
			}
		}
	}
	files := map[string][]byte{}
	filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dest, p)
		if !d.Type().IsRegular() {
			t.Fatalf("unpacked %s, a %v", rel, d.Type())
		}
		files[filepath.ToSlash(rel)], _ = os.ReadFile(p)
		return nil
	})
	return files, uerr
}

// FuzzUnpack unpacks any tar stream, gzip'd. Nothing is written outside
// the target directory; an archive with a link, a device or a non-local
// name is refused; one that is unpacked is a well-formed tar of regular
// files and directories, and the target holds exactly its files, each
// with its bytes.
func FuzzUnpack(f *testing.F) {
	addArchiveSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		files, err := unpackInBox(t, data, Unpack)
		entries, whole := readTar(data)
		want := map[string][]byte{}
		for _, e := range entries {
			local := filepath.IsLocal(filepath.FromSlash(e.hdr.Name))
			switch {
			case e.hdr.Typeflag == tar.TypeReg && local:
				want[path.Clean(e.hdr.Name)] = e.body
			case e.hdr.Typeflag == tar.TypeDir && local:
			default:
				if err == nil {
					t.Fatalf("unpacked an archive holding %q, of type %q", e.hdr.Name, e.hdr.Typeflag)
				}
			}
		}
		if err != nil {
			return
		}
		if !whole {
			t.Fatal("unpacked an archive that archive/tar cannot read to its end")
		}
		if len(files) != len(want) {
			t.Fatalf("unpacked %d files, the archive holds %d", len(files), len(want))
		}
		for name, body := range want {
			if got, ok := files[name]; !ok || !bytes.Equal(got, body) {
				t.Fatalf("%s unpacked as %q (present %v), the archive holds %q", name, got, ok, body)
			}
		}
	})
}

// FuzzUnpackVerified unpacks any tar stream, gzip'd, trusting the key of
// the bundles in testdata. Nothing is written outside the target
// directory; every error is a VerifyError; an archive whose first
// manifest's signature does not verify writes nothing; one that is
// unpacked holds a manifest that verifies, and exactly the manifest's
// files, each with its digest.
func FuzzUnpackVerified(f *testing.F) {
	addArchiveSeeds(f)
	allowed, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	opts := VerifyOptions{AllowedSigners: allowed, Now: now}
	trusted := func(manifest, armored []byte) bool {
		sig, err := sshsig.Parse(armored)
		if err != nil {
			return false
		}
		_, err = allowed.Verify(sig, Namespace, "", manifest, now)
		return err == nil
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		files, err := unpackInBox(t, data, func(archive, dest string) error { return UnpackVerified(archive, dest, opts) })
		if err != nil {
			refusedCleanly(t, data, files, err, trusted)
			return
		}
		unpackedAsListed(t, files, trusted)
	})
}

// refusedCleanly checks a refused archive: the error is a VerifyError,
// and nothing was written unless the archive's first manifest and
// signature are trusted.
func refusedCleanly(t *testing.T, data []byte, files map[string][]byte, err error, trusted func(manifest, armored []byte) bool) {
	var ve *VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("UnpackVerified returned %T: %v", err, err)
	}
	var manifest, armored []byte
	entries, _ := readTar(data)
	for _, e := range entries {
		switch path.Clean(e.hdr.Name) {
		case ManifestFile:
			manifest = firstOf(manifest, e.body)
		case SignatureFile:
			armored = firstOf(armored, e.body)
		}
	}
	if !trusted(manifest, armored) && len(files) > 0 {
		t.Fatalf("an archive whose manifest is untrusted wrote %d files (%v)", len(files), err)
	}
}

// unpackedAsListed checks an unpacked archive: its manifest verifies, and
// it holds exactly the manifest's files, each with its digest.
func unpackedAsListed(t *testing.T, files map[string][]byte, trusted func(manifest, armored []byte) bool) {
	if !trusted(files[ManifestFile], files[SignatureFile]) {
		t.Fatal("unpacked, but the manifest unpacked does not verify")
	}
	st, err := ParseStatement(files[ManifestFile])
	if err != nil {
		t.Fatalf("unpacked, but the manifest does not parse: %v", err)
	}
	listed := map[string]bool{ManifestFile: true, SignatureFile: true, DSSEFile: true}
	for _, sub := range st.Subject {
		listed[sub.Name] = true
		body, ok := files[sub.Name]
		sum := sha256.Sum256(body)
		if !ok || hex.EncodeToString(sum[:]) != sub.Digest[DigestAlgorithm] {
			t.Fatalf("%s: unpacked %v, its digest %x, the manifest's %s", sub.Name, ok, sum, sub.Digest[DigestAlgorithm])
		}
	}
	for name := range files {
		if !listed[name] {
			t.Fatalf("unpacked %s, which the manifest does not list", name)
		}
	}
}

// firstOf is first unless it is nil: the first copy of a file counts.
func firstOf(first, next []byte) []byte {
	if first != nil {
		return first
	}
	return next
}
