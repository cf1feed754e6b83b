package arms

import (
	"slices"
	"strings"
	"testing"
)

func TestARoleWaitsOnItsAfterAndAfterReadyOnEveryOtherRole(t *testing.T) {
	// helper after server; client after_ready, and probe after_ready too
	c := unitController(t, strings.Replace(unitScenario, "{name: helper,", "{name: helper, after: [server],", 1))
	c.s.Roles = append(c.s.Roles, *c.s.Role("client"))
	c.s.Roles[len(c.s.Roles)-1].Name = "probe"
	for role, want := range map[string][]string{"server": nil, "helper": {"server"}, "client": {"server", "helper"}, "probe": {"server", "helper"}} {
		if got := c.deps(c.s.Role(role)); !slices.Equal(got, want) {
			t.Errorf("%s waits on %v, want %v", role, got, want)
		}
	}
}
