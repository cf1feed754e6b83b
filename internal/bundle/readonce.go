package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/abbench/abbench/internal/rundir"
)

// keptFiles are the files the steps after the files step parse: their
// bytes are always kept.
var keptFiles = []string{EvidenceFile, ScenarioFile, ScopesFile, ProvenanceFile, StatusFile}

// The other files (logs, records, registrations) are kept for the
// re-derivation too, each of at most maxHeldFile bytes while the bundle's
// held bytes stay within heldBudget: the evidence is then derived from
// exactly the bytes hashed, with no second open and read of each. A
// larger file is hashed in pieces and read again by the re-derivation, so
// verifying a bundle of large logs holds little of them at once.
const (
	maxHeldFile = 4 << 20
	heldBudget  = 16 << 20
)

// hash is the SHA-256 of the bundle's file rel, at in, a read that
// returns less than asked for taken for its end when shortIsEnd
// (readHead); the bytes of a file a later step reads (keptFiles, and what
// fits the budget) are kept for it, in place of any kept before.
func (c *dirCheck) hash(rel string, in fileAt, shortIsEnd bool) (string, error) {
	if old, ok := c.kept[rel]; ok {
		c.held -= int64(len(old))
		delete(c.kept, rel)
	}
	f, err := openUnstatedAt(in)
	if err != nil {
		return "", err
	}
	defer f.close()
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	head, size, err := f.readHead(*buf, shortIsEnd)
	if err != nil {
		return "", err
	}
	keep := slices.Contains(keptFiles, rel)
	switch {
	case size < 0 && (keep || c.held+int64(len(head)) <= heldBudget): // head is the whole file
		return c.keep(rel, bytes.Clone(head)), nil
	case size < 0:
		return sha256Hex(head), nil
	case !keep && (size > maxHeldFile || c.held+size > heldBudget):
		return hashReader(io.MultiReader(bytes.NewReader(head), f))
	}
	data, err := readAll(f, head, size)
	if err != nil {
		return "", err
	}
	return c.keep(rel, data), nil
}

// keep keeps data, the bundle's file rel, for the steps after the files
// step, and returns its SHA-256.
func (c *dirCheck) keep(rel string, data []byte) string {
	c.kept[rel] = data
	c.held += int64(len(data))
	return sha256Hex(data)
}

// sha256Hex is the SHA-256 of data, in hex.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// hashBuffers are the buffers hashReader reads through: a buffer allocated
// for each file was most of what verifying thousands of bundles allocated.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashReader is the SHA-256 (hex) of what f holds, read in pieces.
func hashReader(f io.Reader) (string, error) {
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, *buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// status is the bundle's status.json parsed from the bytes the files step
// hashed; nil when it holds none or they do not parse, for the
// re-derivation to read it and say why. The re-derivation is all that
// reads it: its times, phases and inherited names are left unread (their
// dozen times parsed were a third of decoding it). Should evidence ever
// be derived from one of them, the re-derivation differs from
// evidence.json and the bundle is refused: never a pass.
func (c *dirCheck) status() *rundir.Status {
	data, ok := c.kept[StatusFile]
	if !ok {
		return nil
	}
	var facts struct {
		statusFields
		Started   unread `json:"started"`
		Ended     unread `json:"ended"`
		Phases    unread `json:"phases"`
		Inherited unread `json:"inherited_env"`
	}
	if json.Unmarshal(data, &facts) != nil {
		return nil
	}
	st := rundir.Status(facts.statusFields)
	return &st
}

// statusFields are rundir.Status's fields, for a decode that shadows some.
type statusFields rundir.Status
