package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordFormats(t *testing.T) {
	cases := []struct {
		file, format string
		requested    int
		pattern      string
		valid        bool
		completed    int
		failed       int
		output       float64
		problem      string
	}{
		{"vllm.json", "vllm", 256, "", true, 256, 0, 797.86, ""},
		{"vllm-failed.json", "vllm", 256, "", false, 254, 2, 791.2, "2 of 256 requests failed"},
		{"vllm-novalidity.json", "vllm", 256, "", false, 256, 0, 797.86, "lacks its validity flag"},
		{"vllm.json", "vllm", 300, "", false, 256, 0, 797.86, "256 of 300 requested requests completed"},
		{"vllm-append.jsonl", "vllm-append", 256, "", true, 256, 0, 797.86, ""},
		{"trtllm.json", "trtllm", 256, "", false, 255, 1, 854.4, "1 of 256 requests failed"},
		{"sglang.jsonl", "sglang", 256, "", true, 256, 0, 817.2, ""},
		{"aiperf.json", "aiperf", 200, "", true, 200, 0, 1274.63, ""},
		{"aiperf-cancelled.json", "aiperf", 200, "", false, 119, 81, 1274.63, "was_cancelled"},
		{"console.txt", "console", 256, "", true, 256, 0, 797.86, ""},
		{"console-failed.txt", "console", 256, "", false, 250, 6, 779, "!FAILED REQUESTS!"},
		{"regex.log", "regex", 256, `completed=(?P<completed>\d+) failed=(?P<failed>\d+) out_tok_s=(?P<output_throughput>[0-9.]+)`, true, 256, 0, 1024.25, ""},
		{"vllm.json", "console", 256, "", false, -1, -1, 0, "no benchmark summary lines"},
		{"console.txt", "vllm", 256, "", false, -1, -1, 0, "does not parse"},
	}
	for _, c := range cases {
		t.Run(c.format+"/"+c.file, func(t *testing.T) {
			r, err := ParseRecord(filepath.Join("testdata", "records", c.file), c.format, c.requested, c.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != c.valid || r.Completed != c.completed || r.Failed != c.failed || r.Metrics["output_throughput"] != c.output {
				t.Fatalf("valid %v completed %d failed %d output %v, problems %v", r.Valid, r.Completed, r.Failed, r.Metrics["output_throughput"], r.Problems)
			}
			if c.problem != "" && !strings.Contains(strings.Join(r.Problems, "; "), c.problem) {
				t.Fatalf("problems %v lack %q", r.Problems, c.problem)
			}
			if c.valid && len(r.Problems) != 0 {
				t.Fatalf("valid record with problems %v", r.Problems)
			}
		})
	}
}

func TestRecordMissingFileIsAnError(t *testing.T) {
	if _, err := ParseRecord(filepath.Join(t.TempDir(), "none.json"), "vllm", 1, ""); err == nil {
		t.Fatal("no error for a missing record")
	}
	if _, err := ParseRecord("testdata/records/vllm.json", "csv", 1, ""); err == nil {
		t.Fatal("unknown format accepted")
	}
}

func TestPythonJSONKeepsStrings(t *testing.T) {
	got := string(pythonJSON([]byte(`{"a": Infinity, "b": "NaN and Infinity", "c": [-Infinity, NaN], "d": "x\"Infinity"}`)))
	want := `{"a": null, "b": "NaN and Infinity", "c": [null, null], "d": "x\"Infinity"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func FuzzRecords(f *testing.F) {
	entries, _ := os.ReadDir("testdata/records")
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join("testdata", "records", e.Name()))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "r")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"vllm", "vllm-append", "trtllm", "sglang", "aiperf", "console"} {
			r, err := ParseRecord(path, format, 10, "")
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid && len(r.Problems) > 0 {
				t.Fatalf("%s: valid with problems %v", format, r.Problems)
			}
			if r.Valid && (r.Failed > 0 || r.Completed < 10) {
				t.Fatalf("%s: valid with %d completed, %d failed", format, r.Completed, r.Failed)
			}
		}
	})
}
