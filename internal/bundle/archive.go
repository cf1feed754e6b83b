package bundle

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/rundir"
)

// Limits on reading an archive, against decompression bombs.
const (
	MaxArchiveFiles = 100_000
	MaxArchiveBytes = 8 << 30
	// MaxManifestBytes bounds manifest.json and its signature, which are
	// read before anything is trusted.
	MaxManifestBytes = 16 << 20
)

// epoch is the fixed time of every archive entry, so archives are reproducible.
var epoch = time.Unix(0, 0).UTC()

// Pack writes the bundle directory dir as a reproducible .tar.gz: names
// sorted, modes 0644/0755, times and owners fixed.
func Pack(dir, out string) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	// abandon closes the archive after a failure, which err reports: the
	// archive is incomplete whatever the close says.
	abandon := func(err error) error {
		_ = f.Close()
		return err
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	gz.ModTime = epoch
	tw := tar.NewWriter(gz)
	for _, rel := range names {
		path := filepath.Join(dir, rel)
		fi, err := os.Stat(path)
		if err != nil {
			return abandon(err)
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: epoch, Format: tar.FormatPAX, Uname: "", Gname: ""}
		if fi.IsDir() {
			hdr.Typeflag, hdr.Mode, hdr.Name = tar.TypeDir, 0o755, hdr.Name+"/"
		} else {
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, fi.Size()
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return abandon(err)
		}
		if !fi.IsDir() {
			src, err := os.Open(path)
			if err != nil {
				return abandon(err)
			}
			_, err = io.Copy(tw, src)
			readonly.Close(src)
			if err != nil {
				return abandon(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return abandon(err)
	}
	if err := gz.Close(); err != nil {
		return abandon(err)
	}
	return f.Close()
}

// Unpack extracts a bundle archive into dest (created, must be empty) and
// refuses anything but regular files and directories with local names:
// no "..", no absolute names, no links, no devices; extraction goes through
// os.OpenRoot, so nothing can be written outside dest; sizes are capped.
func Unpack(archive, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // a directory handle: its close loses nothing written through it
	var total int64
	err = walkArchive(archive, func(name string, hdr *tar.Header, r io.Reader) error {
		if total += hdr.Size; total > MaxArchiveBytes {
			return fmt.Errorf("more than %d bytes unpacked", MaxArchiveBytes)
		}
		_, err := extract(root, name, hdr, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	return nil
}

// extract writes one regular file of an archive under root, creating its
// directories, and returns its SHA-256. The file must not exist yet; it
// must hold exactly the bytes its header says.
func extract(root *os.Root, name string, hdr *tar.Header, r io.Reader) (string, error) {
	if dir := filepath.Dir(filepath.FromSlash(name)); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	out, err := root.OpenFile(filepath.FromSlash(name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", fmt.Errorf("entry %q: %w", name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(r, hdr.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("entry %q holds more bytes than its header says", name)
	}
	return hex.EncodeToString(h.Sum(nil)), err
}

// UnpackVerified extracts a bundle archive into dest only after its
// manifest is trusted: a first pass over the archive reads nothing but
// manifest.json, its signature and its envelope (each at most
// MaxManifestBytes) and runs Verify's read, signature, envelope and
// statement steps on them; the second pass (the files step) extracts only
// the files the manifest lists, each hashed as it is written and refused
// when its SHA-256 differs, within MaxArchiveBytes in all. An archive with
// any other entry, a link, or a file twice is refused, and nothing is
// written for an untrusted one. Every error is a *VerifyError.
func UnpackVerified(archive, dest string, opts VerifyOptions) error {
	c := &manifestCheck{opts: opts, v: &Verified{}}
	return runSteps(archive, []step{
		{StepRead, func() error { return c.readArchive(archive) }},
		{StepSignature, c.signature},
		{StepEnvelope, c.envelope},
		{StepStatement, c.statement},
		{StepFiles, func() error { return extractListed(archive, dest, c.v.Statement) }},
	})
}

// readArchive is the read step of an archive: its manifest, signature and
// envelope, and nothing else.
func (c *manifestCheck) readArchive(archive string) error {
	small := map[string][]byte{}
	err := walkArchive(archive, func(name string, hdr *tar.Header, r io.Reader) error {
		if name != ManifestFile && name != SignatureFile && name != DSSEFile {
			return nil
		}
		if hdr.Size > MaxManifestBytes {
			return fail(StepRead, name, "%s is larger than %d bytes", name, MaxManifestBytes)
		}
		if _, dup := small[name]; dup {
			return fail(StepRead, name, "%s is in the archive twice", name)
		}
		data, err := io.ReadAll(io.LimitReader(r, MaxManifestBytes))
		small[name] = data
		return err
	})
	if err != nil {
		return err
	}
	manifest, ok := small[ManifestFile]
	if !ok {
		return fail(StepRead, ManifestFile, "no %s in the archive", ManifestFile)
	}
	c.manifest, c.dsse = manifest, small[DSSEFile]
	if c.armored, ok = small[SignatureFile]; !ok {
		c.armoredErr = fs.ErrNotExist
	}
	return nil
}

// extractListed is the files step of an archive: it extracts into dest
// the files st lists (and the manifest, its signature and envelope), each
// against its digest, and refuses any other.
func extractListed(archive, dest string, st Statement) error {
	want := map[string]string{ManifestFile: "", SignatureFile: "", DSSEFile: ""}
	for _, sub := range st.Subject {
		want[sub.Name] = sub.Digest[DigestAlgorithm]
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // a directory handle: its close loses nothing written through it
	var total int64
	err = walkArchive(archive, func(name string, hdr *tar.Header, r io.Reader) error {
		sum, listed := want[name]
		if !listed {
			return fail(StepFiles, name, "%s is not in the manifest (a file was added)", name)
		}
		delete(want, name) // a second copy is then refused as unlisted
		if total += hdr.Size; total > MaxArchiveBytes {
			return fmt.Errorf("more than %d bytes unpacked", MaxArchiveBytes)
		}
		got, err := extract(root, name, hdr, r)
		if err != nil {
			return fail(StepFiles, name, "%w", err)
		}
		if sum != "" && got != sum {
			return fail(StepFiles, name, "%s was changed: its SHA-256 is %s, the manifest says %s", name, got, sum)
		}
		return nil
	})
	if err != nil {
		return err
	}
	delete(want, SignatureFile)
	delete(want, DSSEFile)
	if missing := slices.Sorted(maps.Keys(want)); len(missing) > 0 {
		return fail(StepFiles, missing[0], "%s is in the manifest but not in the archive", missing[0])
	}
	return nil
}

// walkArchive calls file for every regular file of a gzip'd tar archive,
// in order, after the same checks as Unpack: local names, no links or
// special files, at most MaxArchiveFiles entries. Directories are skipped.
func walkArchive(archive string, file func(name string, hdr *tar.Header, r io.Reader) error) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer readonly.Close(f)
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(gz)
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n >= MaxArchiveFiles {
			return fmt.Errorf("more than %d entries", MaxArchiveFiles)
		}
		if !filepath.IsLocal(filepath.FromSlash(hdr.Name)) {
			return fmt.Errorf("entry %q is not a local name", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
		case tar.TypeReg:
			if hdr.Size < 0 {
				return fmt.Errorf("entry %q has a negative size", hdr.Name)
			}
			if err := file(path.Clean(hdr.Name), hdr, tr); err != nil {
				return err
			}
		default:
			return fmt.Errorf("entry %q is a %s, not a regular file or directory", hdr.Name, typeName(hdr.Typeflag))
		}
	}
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "FIFO"
	}
	return fmt.Sprintf("entry of type %q", t)
}

// Open returns a bundle directory for path: path itself, or a .tar.gz
// unpacked by UnpackVerified with opts into a temporary directory that
// cleanup removes. An archive that is refused is a *VerifyError naming it.
func Open(path string, opts VerifyOptions) (dir string, cleanup func(), err error) {
	if !rundir.IsArchive(path) {
		return path, func() {}, nil
	}
	found, cleanup, err := rundir.Resolve(path, func(archive, dir string) error { return UnpackVerified(archive, dir, opts) })
	if err != nil {
		cleanup()
		return "", func() {}, failedAt(path, StepRead, err)
	}
	return found[0].Dir, cleanup, nil
}

// VerifyPath verifies the bundle at path (a directory or an archive); its
// errors name path, not a temporary directory.
func VerifyPath(path string, opts VerifyOptions) (*Verified, error) {
	dir, cleanup, err := Open(path, opts)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	v, err := Verify(dir, opts)
	var ve *VerifyError
	if errors.As(err, &ve) && dir != path {
		return nil, ve.renamed(dir, path)
	}
	return v, err
}
