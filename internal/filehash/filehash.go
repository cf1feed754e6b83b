// Package filehash names a file by the SHA-256 of its content: a bundle's
// files, an arm's build, the executable a rank ran.
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/abbench/abbench/internal/readonly"
)

// SHA256 is the lowercase hex SHA-256 of the file's content.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer readonly.Close(f)
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Prefix is the lowercase hex SHA-256 of the first limit bytes of the
// regular file at path, with the file's size and how many bytes were
// hashed (min(size, limit)): a bounded hash of a file of any size. What
// is not a regular file (a FIFO, a device, a directory) is an error,
// never read: it could block or never end.
func Prefix(path string, limit int64) (sum string, size, hashed int64, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", 0, 0, err
	}
	defer readonly.Close(f)
	st, err := f.Stat()
	if err != nil {
		return "", 0, 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, 0, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	h := sha256.New()
	hashed, err = io.Copy(h, io.LimitReader(f, limit))
	if err != nil {
		return "", 0, 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), st.Size(), hashed, nil
}
