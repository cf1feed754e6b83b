package strictjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type point struct {
	X, Y int
}

// TestUnmarshalRefusesWhatFollowsTheValue: a second value or stray bytes
// after the first are an error that says where they begin, never
// ignored; white space is nothing.
func TestUnmarshalRefusesWhatFollowsTheValue(t *testing.T) {
	for in, at := range map[string]int64{`{"X":1} {"X":2}`: 8, `{"X":1}x`: 7, "{\"X\":1}\n\n]": 9, `{"X":1}{}`: 7} {
		var p point
		err := Unmarshal([]byte(in), &p, Options{})
		var trailing *TrailingDataError
		if !errors.As(err, &trailing) || !errors.Is(err, ErrTrailingData) || trailing.Offset != at {
			t.Errorf("%q: %v, want data after the value at byte %d", in, err, at)
		}
	}
	var p point
	if err := Unmarshal([]byte(" {\"X\":1,\"Y\":2}\n\t "), &p, Options{}); err != nil || p != (point{1, 2}) {
		t.Errorf("one value in white space: %+v, %v", p, err)
	}
}

// TestUnmarshalKnownFields: a field the type has not is refused where
// the format is abbench's own, read past elsewhere.
func TestUnmarshalKnownFields(t *testing.T) {
	in := []byte(`{"X":1,"Z":3}`)
	var p point
	if err := Unmarshal(in, &p, Options{KnownFields: true}); err == nil {
		t.Error("an unknown field was read past with KnownFields")
	}
	if err := Unmarshal(in, &p, Options{}); err != nil || p.X != 1 {
		t.Errorf("without KnownFields: %+v, %v", p, err)
	}
}

// TestDecodeCapsTheInput: input over MaxBytes is refused as too large,
// input of exactly MaxBytes is read.
func TestDecodeCapsTheInput(t *testing.T) {
	in := `{"X":1,"Y":2}`
	var p point
	err := Decode(strings.NewReader(in), &p, Options{MaxBytes: int64(len(in) - 1)})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
	if err := Decode(strings.NewReader(in), &p, Options{MaxBytes: int64(len(in))}); err != nil || p != (point{1, 2}) {
		t.Errorf("at the cap: %+v, %v", p, err)
	}
	if err := Unmarshal([]byte(in+"   "), &p, Options{MaxBytes: int64(len(in))}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("bytes over the cap: %v", err)
	}
}

// TestDecodeReadsShortReadsToTheEnd: a reader that returns fewer bytes
// than asked (a pipe, a raw descriptor) is read to io.EOF: the value and
// what follows it are found whatever the reads' sizes.
func TestDecodeReadsShortReadsToTheEnd(t *testing.T) {
	good, bad := `{"X": 1, "Y": 2}`+strings.Repeat(" ", 5000), `{"X": 1, "Y": 2}`+strings.Repeat(" ", 5000)+`{}`
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"one byte": iotest.OneByteReader, "half": iotest.HalfReader, "data with EOF": iotest.DataErrReader,
	} {
		var p point
		if err := Decode(wrap(strings.NewReader(good)), &p, Options{MaxBytes: 1 << 20}); err != nil || p != (point{1, 2}) {
			t.Errorf("%s: %+v, %v", name, p, err)
		}
		if err := Decode(wrap(strings.NewReader(bad)), &p, Options{MaxBytes: 1 << 20}); !errors.Is(err, ErrTrailingData) {
			t.Errorf("%s: a second value after short reads: %v", name, err)
		}
	}
	var p point
	err := Decode(iotest.TimeoutReader(bytes.NewReader([]byte(good))), &p, Options{})
	if !errors.Is(err, iotest.ErrTimeout) && err == nil {
		t.Errorf("a read error is no end: %v", err)
	}
}
