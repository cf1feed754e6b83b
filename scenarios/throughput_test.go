package scenarios

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/records"
)

// A scenario may name exactly the formats records reads: every one of
// them validates (the list is records.Formats, spelled once).
func TestEveryRecordFormatValidates(t *testing.T) {
	for _, format := range records.Formats() {
		to := "format: " + format + "}"
		if format == "regex" {
			to = "format: regex, pattern: 'n=(?P<completed>\\d+) x=(?P<output_throughput>\\d+)'}"
		}
		if _, err := load(t, strings.Replace(base, "format: vllm}", to, 1)); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}
