package digest

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadRecords reads any records file. An error names the file (a bad
// line: the file and a line of it); a file that is read holds as many
// records as its digest counts, and written again it reads back the same
// digest and records.
func FuzzReadRecords(f *testing.F) {
	addPromptSeeds(f) // not records files: their refusal is checked too
	for _, prompts := range [][]byte{[]byte("[1]\n[2,3]\n[]\n"), []byte("\"a\"\n\"b\"\n")} {
		fd, err := Read(bytes.NewReader(prompts), "p", ReadOptions{KeepRecords: true})
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		WriteRecords(&b, fd.Digest, fd.Records)
		f.Add(b.Bytes())
		f.Add(bytes.ToUpper(b.Bytes()))
		f.Add(bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\r\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		d, recs, err := ReadRecords(bytes.NewReader(data), "r")
		if err != nil {
			var le *LineError
			if errors.As(err, &le) && (le.File != "r" || le.Line < 1 || le.Line > bytes.Count(data, []byte("\n"))+1) {
				t.Fatalf("the error names line %d of the file: %v", le.Line, err)
			}
			if !strings.HasPrefix(err.Error(), "r:") && !strings.HasPrefix(err.Error(), "reading r:") {
				t.Fatalf("the error names no file: %v", err)
			}
			return
		}
		if uint64(len(recs)) != d.Count {
			t.Fatalf("%d records, the digest counts %d", len(recs), d.Count)
		}
		var again bytes.Buffer
		if err := WriteRecords(&again, d, recs); err != nil {
			t.Fatal(err)
		}
		d2, recs2, err := ReadRecords(&again, "r")
		if err != nil || d2 != d || !reflect.DeepEqual(recs2, recs) {
			t.Fatalf("written again, the file reads %v %d records (%v), not %v %d", d2, len(recs2), err, d, len(recs))
		}
	})
}
