package history

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzRead reads any store. An error names a line of the store; a torn
// line is the last one; every other non-blank line was one entry, a whole
// JSON value; and the entries, written again as Append writes them, read
// back the same.
func FuzzRead(f *testing.F) {
	addStoreSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		path := filepath.Join(t.TempDir(), "h.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		lineOf := storeLineOf(t, path, len(lines))
		entries, torn, err := Read(path)
		if err != nil {
			lineOf(err.Error())
			return
		}
		tornLine := 0
		if torn != "" {
			if tornLine = lineOf(torn); tornLine != len(lines) {
				t.Fatalf("torn line %d is not the last, %d", tornLine, len(lines))
			}
		}
		var kept [][]byte
		for i, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 && i+1 != tornLine {
				kept = append(kept, l)
			}
		}
		if len(kept) != len(entries) {
			t.Fatalf("%d entries from %d lines", len(entries), len(kept))
		}
		for i, l := range kept {
			if !json.Valid(l) {
				t.Fatalf("entry %d came from a line that is not one JSON value: %q", i, l)
			}
		}
		readsBackTheSame(t, entries)
	})
}

// addStoreSeeds seeds the fuzzer with a store Append wrote and the ways
// one goes wrong: a torn last line, blank lines, another schema, an
// unknown field, a number out of range.
func addStoreSeeds(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed.jsonl")
	d, iv, p := 4.5, [2]float64{1, 8}, 0.01
	cmp := Entry{Kind: KindComparison, Key: "k", Scenario: "s", Arm: "b", Baseline: "a", Metric: "m", DeltaPct: &d, Interval: &iv, P: &p,
		Verdict: "improved", N: 6, Method: "paired-t", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), Signed: true}
	if _, _, err := Append(seed, []Entry{runEntry("a", 1), runEntry("b", 2.5), cmp}); err != nil {
		f.Fatal(err)
	}
	store, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	line := string(bytes.SplitN(store, []byte("\n"), 2)[0])
	f.Add(store)
	for _, s := range []string{
		line + "\n" + line[:len(line)/2],
		line + "\n\n  \n" + line + "\n",
		`{"schema":"abbench-history-v0","kind":"run"}` + "\n",
		`{"schema":"abbench-history-v1","kind":"run","value":1,"extra":2}` + "\n",
		`{"schema":"abbench-history-v1","value":1e999}` + "\n",
	} {
		f.Add([]byte(s))
	}
}

// storeLineOf returns the line of the store at path (of lines lines) that
// a message names, failing the test when it names none.
func storeLineOf(t *testing.T, path string, lines int) func(msg string) int {
	named := regexp.MustCompile("^" + regexp.QuoteMeta(path) + `:(\d+): `)
	return func(msg string) int {
		m := named.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("%q names no line of the store", msg)
		}
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > lines {
			t.Fatalf("%q names line %d of %d", msg, n, lines)
		}
		return n
	}
}

// readsBackTheSame writes entries again as Append writes them and fails
// unless they read back the same.
func readsBackTheSame(t *testing.T, entries []Entry) {
	var again bytes.Buffer
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("an entry read does not marshal: %v", err)
		}
		again.Write(append(b, '\n'))
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, again.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, torn, err := Read(path)
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if a, b := enc(entries), enc(back); err != nil || torn != "" || a != b {
		t.Fatalf("written again, the entries read back differ (%v, %q):\n%s\n%s", err, torn, a, b)
	}
}

// Whatever the line, the scanner gives what encoding/json gives, or gives
// up: it never accepts a line encoding/json refuses, nor reads one
// otherwise.
func FuzzDecodeEntry(f *testing.F) {
	for _, line := range storeLines(f) {
		f.Add(line)
		for _, edit := range [][2]string{
			{`"kind":`, `"kind" :`}, {`"kind"`, `"KIND"`}, {`"arm":"b"`, `"arm":"b\u00e9"`}, {`"arm":"b"`, `"arm":"b","arm":"c"`},
			{`"n":12`, `"n":012`}, {`"n":12`, `"n":1.0`}, {`"n":12`, `"n":1e1`}, {`-3.25`, `-3.`}, {`-3.25`, `-`}, {`-3.25`, `1e999`},
			{`-3.25`, `null`}, {`[-5.5,`, `[1,2,`}, {`"signed":false`, `"signed":nul`}, {`+00:00"`, `+24:00"`}, {`"Z"`, `"z"`},
			{`"arm":"b"`, `"arm":"b","x":1`}, {`"scenario":"s"`, `"scenario":"\"s"`},
		} {
			f.Add(strings.Replace(line, edit[0], edit[1], 1))
		}
		f.Add(line + `{}`)
		f.Add(line + ` `)
	}
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, line string) {
		scanned, ok := newEntryDecoder().scan([]byte(line))
		if !ok {
			return
		}
		strict, err := decodeStrictly([]byte(line))
		if err != nil {
			t.Fatalf("the scanner read a line encoding/json refuses (%v): %s", err, line)
		}
		a, _ := json.Marshal(scanned)
		b, _ := json.Marshal(strict)
		if string(a) != string(b) {
			t.Fatalf("the scanner read %s\nas %s\nencoding/json as %s", line, a, b)
		}
	})
}

// Whatever the line, the key its frame gives is the key encoding/json
// reads, or the frame gives none.
func FuzzFrameKey(f *testing.F) {
	for _, line := range storeLines(f) {
		f.Add(line)
		for _, edit := range [][2]string{
			{`"key":"k"`, `"key":"k","key":"j"`}, {`"key":"t0k3n"`, `"key":"t\"0"`}, {`"key":"`, `"kex":"`},
			{`"kind":"run"`, `"kind":"run","kind":"comparison"`}, {`"scenario":"s"`, `"scenario":"a,\"key\":\"decoy"`},
			{`"arm":"b"`, `"arm":"b","KEY":"x"`}, {`"metric":`, `"key":"x","metric":`},
		} {
			f.Add(strings.Replace(line, edit[0], edit[1], 1))
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		kindKey, ok := frameKey([]byte(line), nil)
		if !ok {
			return
		}
		e, err := decodeStrictly([]byte(line))
		if err == nil && string(kindKey) != e.Kind+" "+e.Key {
			t.Fatalf("the frame gives %q, encoding/json %q of %s", kindKey, e.Kind+" "+e.Key, line)
		}
	})
}
