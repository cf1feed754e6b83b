package rankwrap

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The wrapper's own lookup agrees with the system's id(1) on the ids and
// groups of every user it has, and names a missing user.
func TestLookupAccountAgreesWithID(t *testing.T) {
	for _, name := range []string{"root", "nobody"} {
		out, err := exec.Command("id", "-u", name).Output()
		if err != nil {
			continue // not on this system
		}
		a, err := lookupAccount(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if uid, _ := strconv.Atoi(strings.TrimSpace(string(out))); a.uid != uid {
			t.Errorf("%s: uid %d, id -u says %d", name, a.uid, uid)
		}
		out, _ = exec.Command("id", "-G", name).Output()
		var want []string
		for _, g := range a.groups {
			want = append(want, strconv.Itoa(g))
		}
		got := strings.Fields(string(out))
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: groups %v, id -G says %v", name, want, got)
		}
	}
	if _, err := lookupAccount("no-such-user-abbench"); err == nil || !strings.Contains(err.Error(), "no such user") {
		t.Fatalf("a missing user: %v", err)
	}
}
