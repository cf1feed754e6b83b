package digest

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/fuzzseed"
)

// addPromptSeeds adds the repository's prompts files, a file of each
// specification vector, and hand-made lines.
func addPromptSeeds(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/prompts-256.jsonl", "../../scenarios/nccl/spec.jsonl")
	var doc struct{ Vectors []vector }
	for _, data := range fuzzseed.Files(f, "testdata/digest-vectors.json") {
		if err := json.Unmarshal(data, &doc); err != nil {
			f.Fatal(err)
		}
	}
	for _, v := range doc.Vectors {
		var file bytes.Buffer
		for _, p := range v.Prompts {
			json.Compact(&file, p)
			file.WriteByte('\n')
		}
		f.Add(file.Bytes())
	}
	for _, s := range []string{"[1,2,3]\n", "\"a\\u00e9\"\n", "{\"prompt\":\"x\"}\n", "[", "[-0]", "\"\\ud800\\udc00\"",
		"{\"prompt_token_ids\": [4294967295], \"prompt\": 1}\n\n \t\r\n[0]", "[1.0]\n", "\"x\"\n[1]\n", "\"\xff\"", "[01]", "{\"a\":1}"} {
		f.Add([]byte(s))
	}
}

// FuzzReadPrompts digests any prompts file. The digest is the same for
// one worker or two and any chunking; it holds one record per prompt
// line, each the record of the prompt encoding/json reads from that line;
// a file whose every line encoding/json reads as a prompt is accepted; and
// an error names the first bad line: the lines before it digest, and the
// line alone is refused too.
func FuzzReadPrompts(f *testing.F) {
	addPromptSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		one, err1 := Read(bytes.NewReader(data), "f", ReadOptions{Workers: 1, KeepRecords: true})
		defer func(c int) { chunkSize = c }(chunkSize)
		chunkSize = 3
		two, err2 := Read(bytes.NewReader(data), "f", ReadOptions{Workers: 2, KeepRecords: true})
		chunkSize = 1 << 20
		if (err1 == nil) != (err2 == nil) || one.Digest != two.Digest {
			t.Fatalf("split changed the result: %v/%v %v/%v", one.Digest, err1, two.Digest, err2)
		}
		if err1 != nil && err2 != nil && err1.Error() != err2.Error() {
			t.Fatalf("split changed the error: %v vs %v", err1, err2)
		}
		lines := bytes.Split(data, []byte("\n"))
		if err1 != nil {
			checkLineError(t, data, lines, err1)
			return
		}
		var recs []Record
		var unit Unit
		for i, line := range lines {
			rec, u, ok := referencePrompt(line)
			switch {
			case !ok:
				t.Fatalf("line %d %q was digested, encoding/json reads no prompt from it", i+1, line)
			case u == UnitNone:
				continue
			case unit != UnitNone && u != unit:
				t.Fatalf("line %d: a file of mixed units was digested", i+1)
			}
			unit = u
			recs = append(recs, rec)
		}
		if one.Unit != unit || one.Digest.Count != uint64(len(recs)) || len(one.Records) != len(recs) {
			t.Fatalf("unit %v, %d prompts, %d records; the lines hold %d prompts of unit %v", one.Unit, one.Digest.Count, len(one.Records), len(recs), unit)
		}
		for i := range recs {
			if one.Records[i] != recs[i] {
				t.Fatalf("prompt %d: record %s, encoding/json's prompt gives %s", i, one.Records[i], recs[i])
			}
		}
	})
}

var lineErr = regexp.MustCompile(`^f:(\d+): `)

// checkLineError requires err to name the first bad line of data.
func checkLineError(t *testing.T, data []byte, lines [][]byte, err error) {
	t.Helper()
	var le *LineError
	if !errors.As(err, &le) || le.File != "f" || le.Line < 1 || le.Line > len(lines) || lineErr.FindString(err.Error()) == "" {
		t.Fatalf("the error names no line of the file: %v", err)
	}
	prefix := bytes.Join(lines[:le.Line-1], []byte("\n"))
	if _, err := Read(bytes.NewReader(prefix), "f", ReadOptions{Workers: 1}); err != nil {
		t.Fatalf("the error names line %d, but the lines before it are refused too: %v", le.Line, err)
	}
	if strings.Contains(le.Msg, "must not mix") {
		return // a line of another unit is refused only beside the others
	}
	if _, err := Read(bytes.NewReader(lines[le.Line-1]), "f", ReadOptions{Workers: 1}); err == nil {
		t.Fatalf("the error names line %d (%v), which alone is a prompt", le.Line, le)
	}
	if _, u, ok := referencePrompt(lines[le.Line-1]); ok && u != UnitNone && !ambiguousString(lines[le.Line-1]) {
		t.Fatalf("line %d %q was refused (%v), encoding/json reads a prompt from it", le.Line, lines[le.Line-1], le)
	}
}

// wholeToken is a token ID as the specification writes it: a non-negative
// integer without sign, fraction, exponent or leading zero.
var wholeToken = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// referencePrompt reads one line of a prompts file with encoding/json: a
// blank line (UnitNone), or a prompt's record and unit; ok is false when
// the line holds no prompt.
func referencePrompt(line []byte) (rec Record, unit Unit, ok bool) {
	line = bytes.Trim(line, " \t\r\n")
	if len(line) == 0 {
		return rec, UnitNone, true
	}
	if !json.Valid(line) {
		return rec, UnitNone, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return rec, UnitNone, false
	}
	if obj, isObj := v.(map[string]any); isObj {
		if v, ok = obj[FieldTokens]; !ok {
			if v, ok = obj[FieldText]; !ok {
				return rec, UnitNone, false
			}
		}
	}
	switch p := v.(type) {
	case string:
		if !utf8.ValidString(p) {
			return rec, UnitNone, false
		}
		return RecordOf([]byte(p)), UnitText, true
	case []any:
		var tokens []uint32
		for _, x := range p {
			n, isNum := x.(json.Number)
			if !isNum || !wholeToken.MatchString(string(n)) {
				return rec, UnitNone, false
			}
			v, err := strconv.ParseUint(string(n), 10, 32)
			if err != nil {
				return rec, UnitNone, false
			}
			tokens = append(tokens, uint32(v))
		}
		return RecordOf(AppendTokens(nil, tokens)), UnitTokens, true
	}
	return rec, UnitNone, false
}

// ambiguousString says encoding/json may read line's text differently from
// the specification: it replaces invalid UTF-8 and lone surrogate escapes
// with U+FFFD, where the specification refuses both.
func ambiguousString(line []byte) bool {
	return !utf8.Valid(line) || bytes.Contains(bytes.ToLower(line), []byte(`\ud`))
}
