package digest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Algorithm is a pinned digest algorithm identifier.
type Algorithm string

// The pinned algorithms. Their identifiers are part of every digest's input,
// so digests of different algorithms never collide.
const (
	TokensOrdered Algorithm = "sha256-length-prefixed-prompt-sha256-v1"
	TokensSorted  Algorithm = "sha256-sorted-length-prefixed-prompt-sha256-v1"
	TextOrdered   Algorithm = "sha256-length-prefixed-text-sha256-v1"
)

// Algorithms lists every known algorithm, in the order of the specification.
var Algorithms = []Algorithm{TokensOrdered, TokensSorted, TextOrdered}

// Unit is what an algorithm hashes: token IDs or text.
type Unit int

// The prompt units.
const (
	UnitNone Unit = iota
	UnitTokens
	UnitText
)

func (u Unit) String() string {
	switch u {
	case UnitTokens:
		return "tokens"
	case UnitText:
		return "text"
	}
	return "none"
}

// UnknownAlgorithmError reports an identifier that is not pinned.
type UnknownAlgorithmError struct{ ID string }

func (e *UnknownAlgorithmError) Error() string {
	ids := make([]string, len(Algorithms))
	for i, a := range Algorithms {
		ids[i] = string(a)
	}
	return fmt.Sprintf("unknown digest algorithm %q (known: %s)", e.ID, strings.Join(ids, ", "))
}

// ParseAlgorithm returns the algorithm named id, or an *UnknownAlgorithmError.
func ParseAlgorithm(id string) (Algorithm, error) {
	for _, a := range Algorithms {
		if string(a) == id {
			return a, nil
		}
	}
	return "", &UnknownAlgorithmError{ID: id}
}

// Valid reports whether a is a pinned algorithm.
func (a Algorithm) Valid() bool {
	_, err := ParseAlgorithm(string(a))
	return err == nil
}

// Unit reports whether a hashes token IDs or text.
func (a Algorithm) Unit() Unit {
	switch a {
	case TokensOrdered, TokensSorted:
		return UnitTokens
	case TextOrdered:
		return UnitText
	}
	return UnitNone
}

// Sorted reports whether a hashes the multiset of prompts (order ignored).
func (a Algorithm) Sorted() bool { return a == TokensSorted }

// DefaultFor is the algorithm used for a prompts file of unit u when none is named.
func DefaultFor(u Unit) Algorithm {
	if u == UnitText {
		return TextOrdered
	}
	return TokensOrdered
}

// Digest is the evidence triple: algorithm, prompt count and hex digest.
type Digest struct {
	Algorithm Algorithm
	Count     uint64
	Hex       string
}

// String renders the digest as ALGORITHM:COUNT:HEX, the form Parse reads.
func (d Digest) String() string {
	return fmt.Sprintf("%s:%d:%s", d.Algorithm, d.Count, d.Hex)
}

// Abbrev is the digest with its hex cut to its first 12 digits
// (ALGORITHM:COUNT:HEX12...), as git shortens a commit: for a line of
// text too narrow for the whole, where a digest wrapped across lines
// could be neither copied nor read against another.
func (d Digest) Abbrev() string {
	return fmt.Sprintf("%s:%d:%.12s...", d.Algorithm, d.Count, d.Hex)
}

// Fit is d as a line of text that begins with prefix prints it within
// width columns (0: no limit): whole where it fits, else Abbrev.
func (d Digest) Fit(prefix string, width int) string {
	whole := d.String()
	if width <= 0 || utf8.RuneCountInString(prefix+whole) <= width {
		return whole
	}
	return d.Abbrev()
}

// Equal reports whether two digests are of the same algorithm, count and value.
func (d Digest) Equal(o Digest) bool { return d == o }

// Parse reads the ALGORITHM:COUNT:HEX form written by String.
func Parse(s string) (Digest, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Digest{}, fmt.Errorf("digest %q: want ALGORITHM:COUNT:HEX", s)
	}
	n, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return Digest{}, fmt.Errorf("digest %q: count %q is not a non-negative integer", s, parts[1])
	}
	return New(parts[0], n, parts[2])
}

// New validates and builds a digest from its three parts.
func New(algorithm string, count uint64, hexDigest string) (Digest, error) {
	a, err := ParseAlgorithm(algorithm)
	if err != nil {
		return Digest{}, err
	}
	if err := checkHex(hexDigest); err != nil {
		return Digest{}, err
	}
	return Digest{Algorithm: a, Count: count, Hex: hexDigest}, nil
}

func checkHex(h string) error {
	if len(h) != 64 {
		return fmt.Errorf("digest %q: want 64 lowercase hex characters, got %d characters", h, len(h))
	}
	if strings.ToLower(h) != h {
		return fmt.Errorf("digest %q: hex must be lowercase", h)
	}
	if _, err := hex.DecodeString(h); err != nil {
		return fmt.Errorf("digest %q: not hex", h)
	}
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Digest) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*d = p
	return nil
}

type digestJSON struct {
	Algorithm string `json:"algorithm"`
	Count     uint64 `json:"count"`
	Digest    string `json:"digest"`
}

// MarshalJSON writes {"algorithm": ..., "count": ..., "digest": ...}.
func (d Digest) MarshalJSON() ([]byte, error) {
	return json.Marshal(digestJSON{string(d.Algorithm), d.Count, d.Hex})
}

// UnmarshalJSON reads the object written by MarshalJSON and validates it.
func (d *Digest) UnmarshalJSON(b []byte) error {
	var j digestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	p, err := New(j.Algorithm, j.Count, j.Digest)
	if err != nil {
		return err
	}
	*d = p
	return nil
}
