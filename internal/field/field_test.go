package field

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	flag := func(f, v string) string { return strings.TrimSpace("--" + strings.ToLower(f) + " " + v) }
	for _, c := range []struct {
		err       Error
		own, flag string
	}{
		{Error{Field: "Repeat", Value: "0", Problem: "must be at least 1"}, "Repeat 0: must be at least 1", "--repeat 0: must be at least 1"},
		{Error{Field: "Repeat", With: "Until", Problem: "give one"}, "Repeat and Until: give one", "--repeat and --until: give one"},
		{Error{Field: "Nodes", Needs: []Setting{{"Launcher", "slurm"}, {"Order", "abba"}}, Problem: "(one node)"},
			"Nodes: needs Launcher slurm and Order abba (one node)", "--nodes: needs --launcher slurm and --order abba (one node)"},
	} {
		if got := c.err.Error(); got != c.own {
			t.Errorf("Error() = %q, want %q", got, c.own)
		}
		if got := c.err.Format(flag); got != c.flag {
			t.Errorf("Format(flag) = %q, want %q", got, c.flag)
		}
	}
}
