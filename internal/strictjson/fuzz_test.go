package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzDecode: whatever the bytes, a value Unmarshal reads is one
// encoding/json reads the same, and reading them through one-byte reads
// (a pipe's short reads) gives the same value or the same refusal; a
// walk accepts only what encoding/json accepts.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"X":1,"Y":2}`, `{"X":1} {"X":2}`, `[1,"a\ud83d\ude00",null]`, `{"a":1,"A":2}`, `"\ud800"`, `1e999`, " 7 \n", `{"X":1}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v, short any
		err := Unmarshal(data, &v, Options{})
		shortErr := Decode(iotest.OneByteReader(bytes.NewReader(data)), &short, Options{})
		if (err == nil) != (shortErr == nil) || errors.Is(err, ErrTrailingData) != errors.Is(shortErr, ErrTrailingData) {
			t.Fatalf("whole: %v; one byte a read: %v", err, shortErr)
		}
		if err == nil {
			var std any
			if json.Unmarshal(data, &std) != nil || !reflect.DeepEqual(v, std) || !reflect.DeepEqual(v, short) {
				t.Fatalf("read %v (%v by short reads), encoding/json reads %v", v, short, std)
			}
		}
		if _, walkErr := walkAll(data); walkErr == nil && !json.Valid(data) {
			t.Fatalf("the walk accepts what encoding/json refuses: %q", data)
		}
	})
}

// walkAll walks data to its end.
func walkAll(data []byte) (int, error) {
	w, err := NewWalker(data)
	if err != nil {
		return 0, err
	}
	for n := 0; ; n++ {
		if _, err := w.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
	}
}
