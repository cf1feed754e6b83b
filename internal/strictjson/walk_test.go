package strictjson

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// walk reads every token of in; the error is the walk's first.
func walk(in string) ([]Token, error) {
	w, err := NewWalker([]byte(in))
	if err != nil {
		return nil, err
	}
	var toks []Token
	for {
		t, err := w.Next()
		if errors.Is(err, io.EOF) {
			return toks, nil
		}
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
	}
}

// TestWalkerRefusesWhatReadersDisagreeOn: each input encoding/json
// decodes without complaint, and some other reader reads otherwise or
// refuses, is refused with its typed error.
func TestWalkerRefusesWhatReadersDisagreeOn(t *testing.T) {
	var dup *DuplicateKeyError
	var str *jsontext.SyntacticError
	var num *NumberError
	var trailing *TrailingDataError
	for in, want := range map[string]any{
		`{"a": 1, "a": 2}`:             &dup,
		`{"a": 1, "A": 2}`:             &dup,
		`{"x": {"k": 1, "\u006b": 2}}`: &dup,
		`[{"ſ": 1, "S": 2}]`:           &dup,
		`["\ud800"]`:                   &str,
		`{"\udc00": 1}`:                &str,
		`"\udc00\ud800"`:               &str,
		`[1e999]`:                      &num,
		`{"a": [1, 2]} {"b": 1}`:       &trailing,
		`{"a": [1, 2]} x`:              &trailing,
	} {
		_, err := walk(in)
		if err == nil || !errors.As(err, want) {
			t.Errorf("%s: %v, want a %T", in, err, want)
		}
	}
	if _, err := walk("[\"a\xff\"]"); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("invalid UTF-8: %v", err)
	}
	keys := `{`
	for i := range 40 {
		keys += `"k` + strings.Repeat("x", i) + `": 1, `
	}
	if _, err := walk(keys + `"KXXX": 2}`); !errors.As(err, &dup) || dup.Key != "KXXX" {
		t.Errorf("a key twice but for its case among many: %v", err)
	}
}

// TestWalkerTokens: the same key in different objects, a surrogate pair
// and a large float are read; each token says what it is and where its
// bytes are; Skip reads past a value and says where it ends.
func TestWalkerTokens(t *testing.T) {
	in := ` {"a": {"a": "x\ud83d\ude00"}, "b": [1.5e300, true, null], "c": 3} `
	toks, err := walk(in)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	var raw []string
	for _, tok := range toks {
		kinds = append(kinds, tok.Kind)
		raw = append(raw, in[tok.Start:tok.End])
	}
	wantKinds := []Kind{ObjectStart, Key, ObjectStart, Key, String, ObjectEnd, Key, ArrayStart, Number, Literal, Literal, ArrayEnd, Key, Number, ObjectEnd}
	wantRaw := []string{`{`, `"a"`, `{`, `"a"`, `"x\ud83d\ude00"`, `}`, `"b"`, `[`, `1.5e300`, `true`, `null`, `]`, `"c"`, `3`, `}`}
	if strings.Join(raw, " ") != strings.Join(wantRaw, " ") || len(kinds) != len(wantKinds) {
		t.Fatalf("tokens %q, want %q", raw, wantRaw)
	}
	for i := range kinds {
		if kinds[i] != wantKinds[i] {
			t.Errorf("token %d (%s) is kind %d, want %d", i, raw[i], kinds[i], wantKinds[i])
		}
	}
	if toks[4].Text != "x\U0001F600" {
		t.Errorf("the string's text is %q", toks[4].Text)
	}
	w, _ := NewWalker([]byte(in))
	for range 7 {
		_, _ = w.Next() // up to the "b" key
	}
	first, _ := w.Next()
	end, err := w.Skip(first)
	if err != nil || in[first.Start:end] != `[1.5e300, true, null]` {
		t.Errorf("Skip: %q, %v", in[first.Start:end], err)
	}
}
