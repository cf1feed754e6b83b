package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"github.com/abbench/abbench/internal/atomicfile"
)

// Ports allocates and records the free TCP ports templates ask for with
// {{.Port "NAME"}}: one port per name per attempt, so a server's command
// and its client's name the same port (a port per rank: {{.Port (printf
// "db-%d" .Rank)}}). A port is free on the controller's host when it is
// allocated; the file records every allocation, so evidence and replay
// read the same ports the run used.
type Ports struct {
	path     string // "": validation's placeholder ports
	readOnly bool
	mu       sync.Mutex
	ports    map[string]int
	// bad is why the file holds no ports map: Get returns it rather than
	// allocate over, or miss, what the run recorded.
	bad error
}

// NewPorts allocates into the file path (coord/ports.json), reading what
// it already holds.
func NewPorts(path string) *Ports {
	p := &Ports{path: path, ports: map[string]int{}}
	p.load()
	return p
}

// RecordedPorts reads the ports a run allocated, allocating none.
func RecordedPorts(path string) *Ports {
	p := NewPorts(path)
	p.readOnly = true
	return p
}

func (p *Ports) load() {
	if data, err := os.ReadFile(p.path); err == nil {
		if err := json.Unmarshal(data, &p.ports); err != nil {
			p.bad = fmt.Errorf("%s: %w", p.path, err)
		}
	}
}

// Get is the port of name, allocated on first use.
func (p *Ports) Get(name string) (int, error) {
	if name == "" {
		return 0, errors.New(`.Port needs a name, such as {{.Port "redis"}}`)
	}
	if p == nil || p.path == "" {
		return 1, nil // validation: any port will do
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bad != nil {
		return 0, p.bad
	}
	if port, ok := p.ports[name]; ok {
		return port, nil
	}
	if p.readOnly {
		return 0, fmt.Errorf("the run allocated no port %q (its %s lists %v)", name, p.path, p.ports)
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("allocating port %q: %w", name, err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // a listener that accepted nothing: its close loses nothing
	p.ports[name] = port
	data, _ := json.MarshalIndent(p.ports, "", "  ")
	if err := atomicfile.WriteFile(p.path, append(data, '\n'), 0o644); err != nil {
		return 0, fmt.Errorf("recording port %q: %w", name, err)
	}
	return port, nil
}
