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
