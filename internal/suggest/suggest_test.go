package suggest

import "testing"

func TestDistanceKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"p99_ttf_ms", "p99_ttft_ms", 1}, {"prompts-265", "prompts-256", 2}} {
		if got := Distance(c.a, c.b); got != c.d || Distance(c.b, c.a) != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d both ways", c.a, c.b, got, c.d)
		}
	}
}

func TestClosestWithinItsBound(t *testing.T) {
	names := []string{"p99_ttft_ms", "p99_itl_ms", "median_itl_ms"}
	if got := Closest("p99_ttf_ms", names, 2); got != "p99_ttft_ms" {
		t.Errorf("Closest = %q, want p99_ttft_ms", got)
	}
	if got := Closest("throughput", names, 2); got != "" {
		t.Errorf("Closest of a name far from all = %q, want none", got)
	}
}

// The word refused is never what is suggested, and case is no typo: a
// metric the format may hold but the records do not is answered with
// the nearest they do hold, and an upper-case name with its own.
func TestClosestNeverSuggestsTheWordAndIgnoresCase(t *testing.T) {
	have := []string{"p99_ttft_ms", "p90_ttft_ms", "median_itl_ms"}
	for word, want := range map[string]string{
		"p99.9_ttft_ms": "p99_ttft_ms",
		"P99_TTFT_MS":   "p99_ttft_ms",
		"p99_ttf_ms":    "p99_ttft_ms",
	} {
		if got := Closest(word, have, len(word)/4); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
	if got := Closest("p99_ttft_ms", []string{"p99_ttft_ms"}, 3); got != "" {
		t.Errorf("the word itself suggested: %q", got)
	}
}
