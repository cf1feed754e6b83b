// Package filehash names a file by the SHA-256 of its content: a bundle's
// files, an arm's build, the executable a rank ran.
package filehash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"

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
