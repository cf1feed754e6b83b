package scenarios

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// inContainer is base with the server's ranks in containers of srv:1.
var inContainer = strings.Replace(base, `{name: server, ranks: 2,`, `{name: server, ranks: 2, container: {image: "srv:1", mounts: [data:/data:ro]},`, 1)

func TestContainerLoads(t *testing.T) {
	s, err := load(t, inContainer)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Roles[0].Container
	if c == nil || c.Image != "srv:1" || c.Runtime != RuntimeDocker {
		t.Fatalf("container %+v: want image srv:1 and the default runtime docker", c)
	}
	m, err := s.ParseMount(c.Mounts[0])
	if err != nil || m.Source != filepath.Join(s.Dir, "data") || m.Target != "/data" || !m.ReadOnly {
		t.Errorf("mount %+v (%v): want the scenario's data read-only at /data", m, err)
	}
	if !s.HasContainers() || s.Roles[1].Container != nil {
		t.Error("only the server runs in a container")
	}
}

func TestContainerRejects(t *testing.T) {
	cases := map[string]struct{ to, want string }{
		"no image":       {`container: {mounts: [a:/a]},`, `container needs image`},
		"templated":      {`container: {image: "srv:{{.Arm}}"},`, `is a template: every arm runs one image`},
		"runtime":        {`container: {image: srv, runtime: podman},`, `container runtime "podman": choose docker`},
		"mount":          {`container: {image: srv, mounts: [data]},`, `give SOURCE:TARGET`},
		"relative mount": {`container: {image: srv, mounts: ["data:data"]},`, `must be an absolute path inside the container`},
		"mount option":   {`container: {image: srv, mounts: ["data:/data:rx"]},`, `"rx" is no mount option`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, strings.Replace(base, `{name: server, ranks: 2,`, `{name: server, ranks: 2, `+c.to, 1))
			var es Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if es[0].Line != 8 {
				t.Errorf("%v: want line 8, the role's", es[0])
			}
		})
	}
}

func TestContainerOfBuildsRejected(t *testing.T) {
	y := strings.Replace(strings.Replace(inContainer, `{env: {MODE: "1", PEER: "1"}}`, `{env: {MODE: "1", PEER: "1"}, build: {binary: a}}`, 1),
		`{env: {MODE: "0", PEER: "1"}}`, `{env: {MODE: "0", PEER: "1"}, build: {binary: b}}`, 1)
	if _, err := load(t, y); err == nil || !strings.Contains(err.Error(), "runs in a container, but the arms are builds") {
		t.Fatalf("got %v, want builds in a container refused", err)
	}
}

// TestImageDigestIsMatched holds the pinned digest to the matched digest:
// two runs of the same scenario whose image name resolved to two images
// do not match, and a run re-derived from its record matches its own.
func TestImageDigestIsMatched(t *testing.T) {
	s, err := load(t, inContainer)
	if err != nil {
		t.Fatal(err)
	}
	unpinned := s.MatchedDigest()
	pin := func(digest string) *Scenario {
		return s.WithPins([]rundir.ContainerImage{{Role: "server", Runtime: RuntimeDocker, Image: "srv:1", Digest: digest}})
	}
	a, b := pin("sha256:aaaa"), pin("sha256:bbbb")
	if a.MatchedDigest() == b.MatchedDigest() || a.MatchedDigest() == unpinned {
		t.Fatal("the image's digest does not change the matched digest")
	}
	if s.Roles[0].Container.Digest != "" || s.MatchedDigest() != unpinned {
		t.Fatal("WithPins changed the scenario it was given")
	}
	if again := a.WithPins([]rundir.ContainerImage{{Role: "server", Image: "srv:1", Digest: "sha256:bbbb"}}); again.MatchedDigest() != a.MatchedDigest() {
		t.Error("a run's record re-pinned a scenario already pinned")
	}
	if other := s.WithPins([]rundir.ContainerImage{{Role: "server", Image: "srv:2", Digest: "sha256:aaaa"}}); other.MatchedDigest() != unpinned {
		t.Error("a pin of another image name pinned the role")
	}
	if got := a.Pinned(); len(got) != 1 || got[0].Digest != "sha256:aaaa" || got[0].Image != "srv:1" || got[0].Runtime != RuntimeDocker {
		t.Errorf("pinned %+v", got)
	}
	plain, _ := load(t, base)
	if plain.WithPins(a.Pinned()) != plain || plain.HasContainers() {
		t.Error("a scenario without containers took a pin")
	}
}
