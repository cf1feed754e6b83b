package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/rundir"
)

// keptFiles are the files the steps after the files step read.
var keptFiles = []string{EvidenceFile, ScenarioFile, ScopesFile, ProvenanceFile, StatusFile}

// hash is the SHA-256 of the bundle's file rel at path; the bytes of a
// file a later step reads are kept for it.
func (c *dirCheck) hash(rel, path string) (string, error) {
	if !slices.Contains(keptFiles, rel) {
		return hashFile(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	c.kept[rel] = data
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// hashBuffers are the buffers hashFile reads through: a buffer allocated
// for each file was most of what verifying thousands of bundles allocated.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashFile is the SHA-256 (hex) of the file at path, read in pieces.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer readonly.Close(f)
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	h := sha256.New()
	// Only the Reader: an *os.File's WriteTo would allocate a buffer of its own.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// status is the bundle's status.json parsed from the bytes the files step
// hashed; nil when it holds none or they do not parse, for the
// re-derivation to read it and say why.
func (c *dirCheck) status() *rundir.Status {
	data, ok := c.kept[StatusFile]
	if !ok {
		return nil
	}
	var st rundir.Status
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return &st
}
