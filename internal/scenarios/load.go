package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/lazyregexp"
	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/records"
)

// MaxFileSize bounds a scenario file; anything larger is not a scenario.
const MaxFileSize = 1 << 20

// Load reads, strictly decodes and validates the scenario file at path. A
// returned error is an Errors (each FILE:LINE: message) when the file was
// read but is invalid, and another error when it could not be read.
func Load(path string) (*Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &OpenError{Path: path, Err: err}
	}
	defer readonly.Close(f)
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("larger than %d bytes: not a scenario file", MaxFileSize)}}
	}
	return Parse(data, path)
}

// Parse decodes and validates scenario bytes; file names the source in errors
// and is the base for relative paths.
func Parse(data []byte, file string) (*Scenario, error) {
	return parse(data, file, nil)
}

// ParseWithPrompts is Parse for a scenario whose prompts file is not at
// hand (a scenario inside an evidence bundle): the prompts file's content
// digest is given instead of read.
func ParseWithPrompts(data []byte, file string, prompts *digest.Digest) (*Scenario, error) {
	return parse(data, file, prompts)
}

func parse(data []byte, file string, prompts *digest.Digest) (*Scenario, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlErrors(file, err)
	}
	if len(root.Content) == 0 {
		return nil, Errors{{File: file, Line: 1, Msg: "empty scenario: see docs/scenario.md for the keys a scenario holds"}}
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return nil, Errors{{File: file, Line: root.Content[0].Line, Msg: "a scenario is a mapping of keys such as name, arms and roles", Parse: true}}
	}
	if err := checkSingleDocument(data); err != nil {
		return nil, Errors{{File: file, Msg: err.Error()}}
	}
	var s Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, yamlErrors(file, err)
	}
	s.File = file
	s.Dir = filepath.Dir(file)
	s.ArmOrder = mappingKeys(child(root.Content[0], "arms"))
	v := &validator{s: &s, file: file, root: root.Content[0], prompts: prompts}
	v.digestPrompts()
	ApplyDefaults(&s)
	v.run()
	if len(v.errs) > 0 {
		sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Line < v.errs[j].Line })
		return nil, v.errs
	}
	return &s, nil
}

func checkSingleDocument(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	for i := 0; ; i++ {
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if i == 1 {
			return errors.New("holds more than one YAML document: one scenario per file")
		}
	}
}

var yamlLine = lazyregexp.New(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlErrors turns yaml.v3's messages into FILE:LINE: errors a person can
// act on, naming the keys that are allowed where an unknown one was found.
func yamlErrors(file string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out Errors
	for _, m := range msgs {
		e := &Error{File: file, Msg: strings.TrimPrefix(m, "yaml: "), Parse: true}
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			e.Line, _ = strconv.Atoi(sm[1])
			e.Msg = sm[2]
		}
		e.Msg = friendlyYAML(e.Msg)
		out = append(out, e)
	}
	return out
}

var (
	unknownField = lazyregexp.New(`^field (\S+) not found in type (?:scenarios|records|loadgen)\.(\w+)$`)
	// typeNames are the scenario's types by the name yaml.v3 gives them,
	// its own and the few it takes from other packages (an SLO, a
	// synthetic workload), whose names do not clash.
	typeNames = map[string]reflect.Type{
		"SLO": reflect.TypeFor[records.SLO](), "Synthetic": reflect.TypeFor[loadgen.Synthetic](),
		"Scenario": reflect.TypeFor[Scenario](), "Arm": reflect.TypeFor[Arm](), "Workload": reflect.TypeFor[Workload](),
		"Role": reflect.TypeFor[Role](), "Probe": reflect.TypeFor[Probe](), "Rule": reflect.TypeFor[Rule](),
		"Counter": reflect.TypeFor[Counter](), "ConfigFact": reflect.TypeFor[ConfigFact](),
		"Throughput": reflect.TypeFor[Throughput](), "Evidence": reflect.TypeFor[Evidence](),
		"Criterion": reflect.TypeFor[Criterion](), "Deadlines": reflect.TypeFor[Deadlines](),
		"Launcher": reflect.TypeFor[Launcher](), "LocalOptions": reflect.TypeFor[LocalOptions](),
		"SlurmOptions": reflect.TypeFor[SlurmOptions](), "KubernetesOptions": reflect.TypeFor[KubernetesOptions](),
		"RoleKubernetes": reflect.TypeFor[RoleKubernetes](), "KubeResources": reflect.TypeFor[KubeResources](),
		"KubeToleration": reflect.TypeFor[KubeToleration](), "Attached": reflect.TypeFor[Attached](),
		"AttachedArm": reflect.TypeFor[AttachedArm](), "AttachedDeployment": reflect.TypeFor[AttachedDeployment](),
		"AttachProbe": reflect.TypeFor[AttachProbe](),
	}
	cannotUnmarshal = lazyregexp.New(`^cannot unmarshal !!(\w+) ` + "`" + `?(.*?)` + "`" + `? into (\S+)$`)
)

func friendlyYAML(msg string) string {
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		where := strings.ToLower(m[2])
		if t, ok := typeNames[m[2]]; ok {
			keys := yamlKeys(t)
			if near := didYouMean(m[1], keys); near != "" {
				return fmt.Sprintf("unknown key %q in %s: did you mean %q? (allowed: %s)", m[1], where, near, strings.Join(keys, ", "))
			}
			return fmt.Sprintf("unknown key %q in %s (allowed: %s)", m[1], where, strings.Join(keys, ", "))
		}
		return fmt.Sprintf("unknown key %q in %s", m[1], where)
	}
	if m := cannotUnmarshal.FindStringSubmatch(msg); m != nil {
		want := m[3]
		switch {
		case strings.HasPrefix(want, "map["):
			want = "a mapping"
		case strings.HasPrefix(want, "[]"):
			want = "a list"
		case want == "int":
			want = "an integer"
		case want == "bool":
			want = "true or false"
		case want == "float64":
			want = "a number"
		case want == "string":
			want = "a string"
		default:
			want = "a mapping"
		}
		if d, err := time.ParseDuration(m[2]); err == nil && want == "a number" {
			// Where a number is read it counts milliseconds (slo:), as
			// their keys say: a duration was written where ms are read.
			return fmt.Sprintf("found %s %q where %s is expected: objectives are numbers of milliseconds (%v for %s)", m[1], m[2], want, float64(d)/float64(time.Millisecond), m[2])
		}
		return fmt.Sprintf("found %s %q where %s is expected", m[1], m[2], want)
	}
	if strings.HasPrefix(msg, "mapping key") && strings.Contains(msg, "already defined") {
		return "duplicate key: " + msg
	}
	return indentationHint(msg)
}

func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	slices.Sort(keys)
	return keys
}

// lookup follows path (string keys, int indexes) from n and returns the
// deepest node it reaches, so an error can name the closest line.
func lookup(n *yaml.Node, path ...any) *yaml.Node {
	for _, p := range path {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		next := (*yaml.Node)(nil)
		switch p := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == p {
						next = n.Content[i+1]
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && p < len(n.Content) {
				next = n.Content[p]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// keyLine is the line of the key path's last element, for errors about a key.
func keyLine(n *yaml.Node, path ...any) int {
	if len(path) == 0 {
		return n.Line
	}
	parent := lookup(n, path[:len(path)-1]...)
	if k, ok := path[len(path)-1].(string); ok && parent.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if parent.Content[i].Value == k {
				return parent.Content[i].Line
			}
		}
	}
	return lookup(n, path...).Line
}

func mappingKeys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

// child is the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// OpenError says a scenario file could not be opened (a wrong path, most
// often): the user's input, not abbench's work, failed.
type OpenError struct {
	Path string
	Err  error
}

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// UnknownArmError says a scenario has no arm of the name asked for.
type UnknownArmError struct {
	File, Arm string
	Arms      []string
}

func (e *UnknownArmError) Error() string {
	return fmt.Sprintf("arm %q is not in %s (arms: %v)", e.Arm, e.File, e.Arms)
}

// LoadArm is Load of a scenario that must have arm (*UnknownArmError
// otherwise).
func LoadArm(path, arm string) (*Scenario, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	if _, ok := s.Arms[arm]; !ok {
		return nil, &UnknownArmError{File: path, Arm: arm, Arms: s.ArmOrder}
	}
	return s, nil
}
