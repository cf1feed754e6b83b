package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
)

// TemplateData is what command, log, env and file templates may use, for
// example {{.Rank}}, {{.Out}}/throughput.json or {{.Workload.Requests}}.
// Build it with Scenario.TemplateData only, so validation, the controller,
// evidence and bundles see the same values.
type TemplateData struct {
	Rank     int          // the rank within its role, from 0
	Ranks    int          // the role's rank count
	Role     string       // the role's name
	Arm      string       // the arm's name
	Token    string       // the run's launch token
	Out      string       // the run (attempt) directory
	Coord    string       // the run's coordination directory, named by the token
	Dir      string       // the scenario file's directory, absolute
	Host     string       // the host the rank runs on
	Build    string       // the arm's build (arms: NAME: build: binary:), absolute
	Workload WorkloadData // the workload, declared once in the scenario
	// Matrix is the cell's value of every matrix axis, by axis name:
	// {{.Matrix.concurrency}}.
	Matrix map[string]string

	ports *Ports
	// attached is each attached server's address for the arm
	// ({{.Attached "NAME"}}).
	attached map[string]string
}

// Port is a free TCP port for name, the same in every template of the
// attempt: {{.Port "redis"}} in a server's command and its client's.
func (d TemplateData) Port(name string) (int, error) { return d.ports.Get(name) }

// Scratch is the attempt's short scratch directory (a unix socket path
// fits), created before the ranks start and removed at teardown.
func (d TemplateData) Scratch() string {
	if d.Token == "" {
		return ""
	}
	return rundir.Scratch(d.Token)
}

// WorkloadData is the scenario's workload as templates see it, so a
// client's command takes it from the one place it is declared.
type WorkloadData struct {
	Requests    int    // workload.requests
	Concurrency int    // workload.concurrency
	Rounds      int    // workload.rounds
	Prompts     string // the prompts file, absolute
	// The arrival schedule: workload.rate (0: a closed loop),
	// workload.burstiness, workload.seed.
	Rate, Burstiness float64
	Seed             uint64
}

// Place says for whom a template is expanded: an arm's attempt, and for a
// rank's templates its role, rank and host. A zero Role means the run as a
// whole (the throughput record's file).
type Place struct {
	Arm, Token string
	Out        string // the attempt directory
	Role       *Role
	Rank       int
	Host       string
	// Ports allocates {{.Port "NAME"}} (nil: a placeholder, for validation).
	Ports *Ports
	// Attached are the addresses the run resolved attached servers to (a
	// Deployment's pod); the others are the scenario's URLs.
	Attached map[string]string
}

// TemplateData is the one constructor of template data.
func (s *Scenario) TemplateData(p Place) TemplateData {
	d := TemplateData{Arm: p.Arm, Token: p.Token, Out: p.Out, Dir: absDir(s.Dir), Host: p.Host, Rank: p.Rank, ports: p.Ports,
		attached: s.attachedOf(p.Arm, p.Attached),
		Workload: WorkloadData{Requests: s.Workload.Requests.Count(), Concurrency: s.Workload.Concurrency, Rounds: s.Workload.Rounds,
			Rate: s.Workload.Rate, Burstiness: s.Workload.Burstiness, Seed: s.Workload.Seed}, Matrix: s.cellValues()}
	if p.Out != "" {
		d.Coord = rundir.Coord(p.Out)
	}
	if s.Workload.Prompts != "" {
		d.Workload.Prompts = absDir(s.Path(s.Workload.Prompts))
	}
	if p.Role != nil {
		d.Role, d.Ranks = p.Role.Name, p.Role.Ranks
	}
	if b := s.Arms[p.Arm].Build; b != nil && b.Binary != "" {
		d.Build = absDir(s.Path(b.Binary))
	}
	return d
}

func absDir(d string) string {
	if a, err := filepath.Abs(d); err == nil {
		return a
	}
	return d
}

// sampleData executes templates during validation, so unknown fields fail
// there and not at run time.
func (s *Scenario) sampleData() TemplateData {
	d := s.TemplateData(Place{Arm: "a", Token: "t", Out: "/out", Role: &Role{Name: "r", Ranks: 1}, Host: "h"})
	if s.HasBuilds() {
		d.Build = "/build/binary"
	}
	// Each arm's server is the declared difference, as the arms' values
	// are: held alike here, so a client may name it.
	for name := range d.attached {
		d.attached[name] = "http://attached-" + name
	}
	return d
}

// templateFields names what templates may use, for error messages.
const templateFields = `.Rank .Ranks .Role .Arm .Token .Out .Coord .Dir .Host .Build .Scratch .Port "NAME" .Workload.Requests .Workload.Concurrency .Workload.Rounds .Workload.Prompts .Workload.Rate .Workload.Burstiness .Workload.Seed .Matrix.AXIS .Attached "NAME", and env "NAME"`

// templateFuncs are the functions templates may call: env NAME reads the
// controller's environment when the rank starts, so a secret reaches a rank
// without being written in the scenario (it is redacted in provenance).
var templateFuncs = template.FuncMap{"env": os.Getenv}

// Template parses text as a template over TemplateData.
func Template(text string) (*template.Template, error) {
	return template.New("").Funcs(templateFuncs).Option("missingkey=error").Parse(text)
}

// Expand executes a template text over d.
func Expand(text string, d TemplateData) (string, error) {
	return ExpandSecrets(text, d, nil)
}

// ExpandSecrets is Expand that adds to secrets every value the template
// read with env "NAME": whatever its name, such a value may be a secret,
// and abbench writes it nowhere (see package redact).
func ExpandSecrets(text string, d TemplateData, secrets *redact.Values) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil // most arguments are literal: no parse for each of thousands of ranks
	}
	t, err := Template(text)
	if err != nil {
		return "", err
	}
	if secrets != nil {
		t.Funcs(template.FuncMap{"env": func(name string) string {
			v := os.Getenv(name)
			secrets.Add(v)
			return v
		}})
	}
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
