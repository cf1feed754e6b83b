// Package strictjson is abbench's one strict way of decoding JSON: exactly
// one value, anything after it an error rather than ignored (a record read
// to its first value would compare a result the run may not have written),
// unknown fields refused where the format is abbench's own, a cap on the
// bytes taken from outside, and a token walk (Walker) that refuses what
// JSON readers disagree on: a key twice in one object (even but for its
// case), half a UTF-16 surrogate pair, invalid UTF-8, a number no float64
// holds. Decoding into a value is encoding/json's streaming decoder, so
// that the grammar is the standard library's and a short read is never
// taken for the end of the input; the walk reads jsontext's tokens (see
// Walker).
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Options say how strict a decoding is beyond one value and nothing after.
type Options struct {
	// KnownFields refuses a field the value's type has not: set it where
	// the format is abbench's own, so that a misspelled field is an error,
	// not a value silently left zero.
	KnownFields bool
	// MaxBytes caps the input (0: no cap); set it where the input comes
	// from outside and is read from a stream.
	MaxBytes int64
	// UseNumber decodes a number into an interface value as json.Number.
	UseNumber bool
}

// ErrTrailingData is what a *TrailingDataError is (errors.Is).
var ErrTrailingData = errors.New("data after the JSON value")

// TrailingDataError is input with more than white space after its value:
// a second value run on, or bytes of something else.
type TrailingDataError struct {
	// Offset is the byte of the input where what follows begins.
	Offset int64
}

func (e *TrailingDataError) Error() string {
	return fmt.Sprintf("data after the JSON value, at byte %d", e.Offset)
}

// Is makes errors.Is(err, ErrTrailingData) hold.
func (e *TrailingDataError) Is(target error) bool { return target == ErrTrailingData }

// ErrTooLarge is what a *TooLargeError is (errors.Is).
var ErrTooLarge = errors.New("JSON input over its cap")

// TooLargeError is input over Options.MaxBytes.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("JSON input over its cap of %d bytes", e.Max)
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Unmarshal decodes data, exactly one JSON value, into v.
func Unmarshal(data []byte, v any, opt Options) error {
	if opt.MaxBytes > 0 && int64(len(data)) > opt.MaxBytes {
		return &TooLargeError{Max: opt.MaxBytes}
	}
	return Decode(bytes.NewReader(data), v, opt)
}

// Decode decodes what r holds to its end, exactly one JSON value, into v.
// r is read until it says io.EOF: a short read is not the end.
func Decode(r io.Reader, v any, opt Options) error {
	src := r
	var capped *capReader
	if opt.MaxBytes > 0 {
		capped = &capReader{r: r, left: opt.MaxBytes}
		src = capped
	}
	dec := json.NewDecoder(src)
	if opt.KnownFields {
		dec.DisallowUnknownFields()
	}
	if opt.UseNumber {
		dec.UseNumber()
	}
	err := dec.Decode(v)
	if err == nil {
		err = end(dec)
	}
	if capped != nil && capped.over {
		return &TooLargeError{Max: opt.MaxBytes}
	}
	return err
}

// end says whether dec's input ends after the value it decoded: only white
// space follows.
func end(dec *json.Decoder) error {
	at := dec.InputOffset() + leadingSpace(dec)
	_, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil
	}
	var syntax *json.SyntaxError
	if err == nil || errors.As(err, &syntax) {
		// A second value, or bytes that are no JSON at all: either way
		// not the one value.
		return &TrailingDataError{Offset: at}
	}
	return err
}

// leadingSpace is how much white space dec has buffered after its last
// value: what follows begins past it (when the buffer holds it).
func leadingSpace(dec *json.Decoder) int64 {
	r, ok := dec.Buffered().(io.ByteReader) // a *bytes.Reader: no copy
	if !ok {
		return 0
	}
	var n int64
	for {
		c, err := r.ReadByte()
		if err != nil || (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			return n
		}
		n++
	}
}

// capReader reads r up to left bytes, and notes a byte beyond them.
type capReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
			c.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
