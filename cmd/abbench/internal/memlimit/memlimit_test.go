package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestOnlyStreamingCommandsGetTheSoftLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	for _, c := range []struct {
		args []string
		want int64
	}{
		{[]string{"digest", "f.jsonl"}, Soft},
		{[]string{"--version"}, math.MaxInt64},
		{[]string{"replay", "s.yaml"}, Soft},
		{[]string{"arm", "s.yaml", "--arm", "a"}, math.MaxInt64},
		{[]string{"run", "s.yaml"}, math.MaxInt64},
		{[]string{"compare", "out/campaign"}, math.MaxInt64},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		ForCommand(c.args)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("%v: limit %d, want %d", c.args, got, c.want)
		}
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	ForCommand([]string{"digest"})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set, but the limit became %d", got)
	}
}
