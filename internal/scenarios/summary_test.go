package scenarios

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/termwidth"
)

// At 80 columns the prompts' digest is cut to its first 12 hex digits,
// never wrapped across lines (where the line was 122 columns, cut
// mid-digest by the fitted writer); without a width it is whole.
func TestSummaryPromptsDigestIsNeverWrapped(t *testing.T) {
	s, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	whole := s.PromptsDigest.String()
	for _, cols := range []int{0, 80} {
		var b strings.Builder
		w := termwidth.NewWriter(&b, cols)
		if err := s.Summary().WriteText(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want := "  prompts:    " + whole + "\n"
		if cols > 0 {
			want = "  prompts:    " + s.PromptsDigest.Abbrev() + "\n"
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("at %d columns no line %q:\n%s", cols, want, b.String())
		}
	}
}
