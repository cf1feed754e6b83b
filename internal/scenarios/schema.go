package scenarios

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/records"
)

// Scenario is one A/B experiment: arms that differ only in declared
// environment keys, the roles of the system under test, its workload, the
// evidence to extract and the criteria that evidence must meet.
//
// The json tags name the fields of the canonical encoding hashed into the
// matched digest (see MatchedDigest and docs/scenario.md); they must match the
// yaml tags.
type Scenario struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"-"`
	// Arms maps an arm's name to the environment that defines it. Every arm
	// declares the same keys; their values are all that may differ.
	Arms     map[string]Arm `yaml:"arms" json:"arms"`
	Baseline string         `yaml:"baseline" json:"baseline"`
	// Env is given to every rank of every role; arm keys may not appear here.
	Env      map[string]string `yaml:"env" json:"env"`
	Workload Workload          `yaml:"workload" json:"workload"`
	Roles    []Role            `yaml:"roles" json:"roles"`
	// Attach are servers abbench attaches to, one per arm, rather than
	// starts (attach.go, docs/scenario.md).
	Attach         []Attached  `yaml:"attach" json:"attach,omitempty"`
	Evidence       Evidence    `yaml:"evidence" json:"evidence"`
	Acceptance     []Criterion `yaml:"acceptance" json:"acceptance"`
	Deadlines      Deadlines   `yaml:"deadlines" json:"deadlines"`
	NoiseThreshold float64     `yaml:"noise_threshold" json:"noise_threshold"`
	Launcher       Launcher    `yaml:"launcher" json:"launcher"`
	// Telemetry is what is sampled while a run measures (telemetry.go).
	Telemetry Telemetry `yaml:"telemetry" json:"telemetry"`
	// Matrix sweeps named axes; each cell is its own matched A/B
	// (matrix.go, docs/scenario.md).
	Matrix Matrix `yaml:"matrix" json:"matrix"`
	// Setup, Teardown, BeforeAll and AfterAll are the hook lists
	// (hooks.go, docs/scenario.md).
	Setup     []Hook `yaml:"setup" json:"setup"`
	Teardown  []Hook `yaml:"teardown" json:"teardown"`
	BeforeAll []Hook `yaml:"before_all" json:"before_all"`
	AfterAll  []Hook `yaml:"after_all" json:"after_all"`
	// Source names the system under test for provenance: its repository
	// (whose revision and dirtiness every bundle records) and image. It is
	// not part of the matched digest; compare checks the recorded revisions.
	Source Source `yaml:"source" json:"-"`

	// Set by Load.
	File     string   `yaml:"-" json:"-"` // path as given
	Dir      string   `yaml:"-" json:"-"` // directory that relative paths resolve against
	ArmOrder []string `yaml:"-" json:"-"` // arm names in file order
	// PromptsDigest is the content digest of the workload's prompts file.
	PromptsDigest digest.Digest `yaml:"-" json:"-"`
	// Warnings are problems that do not stop the scenario, each FILE:LINE:
	// message (for example a workload value spelled literally in a command).
	Warnings Errors `yaml:"-" json:"-"`
}

// Source is where the system under test comes from.
type Source struct {
	Repository string `yaml:"repository"`
	Image      string `yaml:"image"`
}

// Arm is one side of the comparison.
type Arm struct {
	Description string            `yaml:"description" json:"-"`
	Env         map[string]string `yaml:"env" json:"env"`
	// Build is the arm's build of the system under test, for an A/B of two
	// builds: roles run it as {{.Build}}. Its values stay out of the
	// matched digest (the declared difference); that arms declare builds
	// counts.
	Build *Build `yaml:"build" json:"build,omitempty"`
}

// Build is one arm's build: a binary whose content hash every run records
// (and every rank that runs it), and what it was built from.
type Build struct {
	// Binary is the executable, relative to the scenario file.
	Binary string `yaml:"binary" json:"binary"`
	// Source says what it was built from (for example repo@ref or a
	// commit): recorded and reported, not checked.
	Source string `yaml:"source" json:"source"`
}

// HasBuilds says whether the arms are builds (then every arm declares one).
func (s *Scenario) HasBuilds() bool {
	for _, a := range s.Arms {
		if a.Build != nil {
			return true
		}
	}
	return false
}

// Workload is what the client sends.
type Workload struct {
	// Prompts is a JSON Lines prompts file, relative to the scenario file.
	Prompts string `yaml:"prompts" json:"-"`
	// Field names the object field holding each prompt (default
	// prompt_token_ids, then prompt).
	Field string `yaml:"field" json:"field"`
	// Algorithm is the pinned digest algorithm; default by the file's unit.
	Algorithm string `yaml:"algorithm" json:"algorithm"`
	// Requests is how many requests the client sends per round: a count
	// (default: every prompt), or FromRecord for a client that decides
	// itself (a duration-based one): the record then says how many it
	// attempted.
	Requests    RequestCount `yaml:"requests" json:"requests"`
	Concurrency int          `yaml:"concurrency" json:"concurrency"`
	Rounds      int          `yaml:"rounds" json:"rounds"`
	// Rate is the mean arrival rate (requests per second) of a seeded
	// Poisson schedule, for a client that draws one (an openai role, or
	// one given {{.Workload.Rate}}); 0 is a closed loop at the concurrency.
	Rate float64 `yaml:"rate" json:"rate"`
	// Burstiness is the gamma shape of the schedule's gaps (default 1
	// with a rate: Poisson).
	Burstiness float64 `yaml:"burstiness" json:"burstiness"`
	// Seed draws the schedule. Like every workload value it is in the
	// matched digest: every arm is sent the same schedule.
	Seed uint64 `yaml:"seed" json:"seed"`
	// The keys of abbench's own client (workload_dataset.go): every user
	// turn of a conversation dataset, a synthetic workload in place of a
	// file, a duration in place of a count, warm-up requests, a ramp.
	MultiTurn bool               `yaml:"multi_turn" json:"multi_turn"`
	Synthetic *loadgen.Synthetic `yaml:"synthetic" json:"synthetic"`
	Duration  Duration           `yaml:"duration" json:"duration"`
	Warmup    int                `yaml:"warmup" json:"warmup"`
	Ramp      *Ramp              `yaml:"ramp" json:"ramp"`
}

// RequestCount is workload.requests: a count, or FromRecord.
type RequestCount int

// FromRecord is the request count of requests: from-record.
const FromRecord RequestCount = -1

// FromRecordName is how a scenario spells FromRecord.
const FromRecordName = "from-record"

// UnmarshalYAML reads a whole number of at least 1, or from-record.
func (r *RequestCount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == FromRecordName {
		*r = FromRecord
		return nil
	}
	var i int
	if err := n.Decode(&i); err != nil || i < 1 {
		return fmt.Errorf("line %d: requests %q: give a whole number of at least 1, or %s (the client decides; its record says how many)", n.Line, n.Value, FromRecordName)
	}
	*r = RequestCount(i)
	return nil
}

// Count is the number of requests, 0 when the record decides.
func (r RequestCount) Count() int { return max(int(r), 0) }

// Total is the number of requests of every round, 0 when the record
// decides (requests: from-record, or a duration run).
func (w Workload) Total() int {
	if w.Duration > 0 {
		return 0
	}
	return w.Requests.Count() * w.Rounds
}

// Role is one kind of process of the system under test, started Ranks times.
type Role struct {
	Name  string `yaml:"name" json:"name"`
	Ranks int    `yaml:"ranks" json:"ranks"`
	// Command is the argument list; each argument is a template (see TemplateData).
	Command []string `yaml:"command" json:"command"`
	// ArmEnv gives the arm's environment to every rank of this role. Roles
	// without it never see arm keys.
	ArmEnv bool              `yaml:"arm_env" json:"arm_env"`
	Env    map[string]string `yaml:"env" json:"env"`
	// Log is the rank's log file, a template relative to the run directory.
	// Default: ROLE-RANK.log.
	Log   string `yaml:"log" json:"log"`
	Ready *Probe `yaml:"ready" json:"ready"`
	// After names roles that must be ready before this one starts.
	After []string `yaml:"after" json:"after"`
	// AfterReady starts the role once every role without it is ready.
	AfterReady bool `yaml:"after_ready" json:"after_ready"`
	// Client marks the benchmark client: its exit ends the measured phase.
	Client bool `yaml:"client" json:"client"`
	// User runs the role's ranks as this user (a server that refuses to
	// run as root); abbench must then run as root. The rank wrapper
	// registers the rank, then takes the user's ids and exec's.
	User string `yaml:"user" json:"user,omitempty"`
	// Slurm places the role's ranks inside a Slurm allocation.
	Slurm RoleSlurm `yaml:"slurm" json:"slurm"`
	// OpenAI makes the role abbench's own load client of an
	// OpenAI-compatible server, in place of a command (openai.go).
	OpenAI *OpenAIClient `yaml:"openai" json:"openai,omitempty"`
	// Container runs each rank in a container (local launcher).
	Container *Container `yaml:"container" json:"container,omitempty"`
	// Kubernetes makes the role's rank pods (kubernetes.go).
	Kubernetes *RoleKubernetes `yaml:"kubernetes" json:"kubernetes,omitempty"`
	// Metrics is the URL (a template) of each rank's Prometheus
	// endpoint, scraped before the client and after the drain.
	Metrics string `yaml:"metrics" json:"metrics,omitempty"`
}

// RoleSlurm places one role's srun step inside the allocation.
type RoleSlurm struct {
	// Nodes gives the role a slice of this many nodes of the allocation, of
	// its own (roles with Nodes take disjoint slices, in role order); zero
	// lets srun place the ranks anywhere in the allocation.
	Nodes       int      `yaml:"nodes" json:"nodes"`
	GPUsPerTask int      `yaml:"gpus_per_task" json:"gpus_per_task"`
	ExtraSrun   []string `yaml:"extra_srun" json:"extra_srun"`
}

// Probe says when a rank is ready: a line matching Log in its log, or a
// TCP port (a template) accepting connections.
type Probe struct {
	Log  string `yaml:"log" json:"log"`
	Port string `yaml:"port" json:"port"`
}

// Rule is a regular expression with named groups applied to a role's logs.
type Rule struct {
	Role    string `yaml:"role" json:"role"`
	Pattern string `yaml:"pattern" json:"pattern"`
	// Records (activation only) is a template naming each rank's per-prompt
	// digest records file (abbench digest --records format), relative to the
	// run directory, so a digest mismatch between arms can be explained.
	Records string `yaml:"records" json:"records"`
}

// Counter counts matching lines per rank, or, with Value, takes the named
// group's integer from the last matching line.
type Counter struct {
	Role    string `yaml:"role" json:"role"`
	Pattern string `yaml:"pattern" json:"pattern"`
	Value   string `yaml:"value" json:"value"`
}

// ConfigFact is a value at a path inside a generated YAML or JSON
// configuration file of a role.
type ConfigFact struct {
	Name string `yaml:"name" json:"name"`
	Role string `yaml:"role" json:"role"`
	// File is a template relative to the run directory.
	File string `yaml:"file" json:"file"`
	// Path is dot-separated keys (list indexes as numbers).
	Path   string `yaml:"path" json:"path"`
	Equals string `yaml:"equals" json:"equals"`
}

// Throughput names the benchmark client's record.
type Throughput struct {
	File    string `yaml:"file" json:"file"`
	Format  string `yaml:"format" json:"format"`
	Pattern string `yaml:"pattern" json:"pattern"`
	// Metric is the headline metric compared by default (default
	// output_throughput); for the regex format, a named group of Pattern.
	Metric string `yaml:"metric" json:"metric"`
	// Valid names a boolean field a JSON record must carry, true (no
	// format requires one: real tools say validity in their own ways).
	Valid string `yaml:"valid" json:"valid"`
	// Result names this run's result in a record that holds several (a
	// redis-benchmark CSV of many tests, a memtier run of several): the
	// name the record gives it. A record of several read without one is
	// invalid, naming them; a format of one result per file takes none.
	Result string `yaml:"result" json:"result"`
	// HigherIsBetter declares which way the headline metric improves;
	// unset, it follows from the metric's name (MetricHigherIsBetter).
	HigherIsBetter *bool `yaml:"higher_is_better" json:"higher_is_better"`
	// Metrics are the metrics compared together, each in a table of its
	// own, the family held to alpha by Holm's method (default: the
	// headline alone); validate refuses one the format does not provide.
	Metrics []string `yaml:"metrics" json:"metrics"`
	// SLO are a request's objectives (ms), which give the goodput metric.
	SLO *records.SLO `yaml:"slo" json:"slo"`
}

// MetricHigherIsBetter says which way a metric improves when the scenario
// does not declare it (records.HigherIsBetter reads it from the name).
func MetricHigherIsBetter(metric string) bool { return records.HigherIsBetter(metric) }

// Evidence says what to extract from logs and records.
type Evidence struct {
	// Profiling is true when each rank's cumulative log holds a complete
	// profiling lifecycle before the measured one.
	Profiling    bool               `yaml:"profiling" json:"profiling"`
	Mode         ModeRules          `yaml:"mode" json:"mode"`
	LifecycleEnd *Rule              `yaml:"lifecycle_end" json:"lifecycle_end"`
	Activation   *Rule              `yaml:"activation" json:"activation"`
	Counters     map[string]Counter `yaml:"counters" json:"counters"`
	Configs      []ConfigFact       `yaml:"configs" json:"configs"`
	Throughput   *Throughput        `yaml:"throughput" json:"throughput"`
	Extra        map[string]Rule    `yaml:"facts" json:"facts"`
}

// Criterion is one acceptance criterion; exactly one kind is set.
type Criterion struct {
	// Requests: "all" requests succeeded.
	Requests string `yaml:"requests" json:"requests,omitempty"`
	// Throughput: "valid" record.
	Throughput string `yaml:"throughput" json:"throughput,omitempty"`
	// Record: "valid": the record carries its tool's own verdict, and the
	// tool says the run is valid.
	Record string `yaml:"record" json:"record,omitempty"`
	// Mode: "all-ranks" ran the arm's mode, before the client and at teardown.
	Mode string `yaml:"mode" json:"mode,omitempty"`
	// Digest: "agree": ranks agree on the activation digest and it is pinned.
	Digest string `yaml:"digest" json:"digest,omitempty"`
	// Activation: the activation count equals this expression.
	Activation string `yaml:"activation" json:"activation,omitempty"`
	// Counter names an evidence counter that must equal Equals on every rank of Role.
	Counter string `yaml:"counter" json:"counter,omitempty"`
	// Config names a config fact that must hold.
	Config string `yaml:"config" json:"config,omitempty"`
	// CleanShutdown: every rank exited 0 after SIGTERM or on its own.
	CleanShutdown bool `yaml:"clean_shutdown" json:"clean_shutdown,omitempty"`
	// OutputTokens: "equal": the arms generated the same output tokens
	// per run (compare censors output-length-mismatch), within Within
	// ("2%") when set.
	OutputTokens string `yaml:"output_tokens" json:"output_tokens,omitempty"`
	// ServerMetric names a metric of the role's Prometheus endpoint
	// (servermetrics.go) held, At a moment, to Equals or, across the
	// arms, Within.
	ServerMetric string `yaml:"server_metric" json:"server_metric,omitempty"`
	At           string `yaml:"at" json:"at,omitempty"`
	Within       string `yaml:"within" json:"within,omitempty"`
	Role         string `yaml:"role" json:"role,omitempty"`
	// Equals is an integer or a product of integers and workload names
	// (requests, rounds, concurrency), for example requests*rounds.
	Equals string `yaml:"equals" json:"equals,omitempty"`
	// Arms limits the criterion to these arms (default every arm).
	Arms []string `yaml:"arms" json:"arms,omitempty"`
}

// Kind is the criterion's kind, or "" when none or several are set.
func (c Criterion) Kind() string {
	var kinds []string
	for k, set := range map[string]bool{
		"requests": c.Requests != "", "throughput": c.Throughput != "", "record": c.Record != "", "mode": c.Mode != "",
		"digest": c.Digest != "", "activation": c.Activation != "", "counter": c.Counter != "",
		"config": c.Config != "", "clean_shutdown": c.CleanShutdown, "output_tokens": c.OutputTokens != "",
		"server_metric": c.ServerMetric != "",
	} {
		if set {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// Deadlines bound every phase of a run.
type Deadlines struct {
	Ready     Duration `yaml:"ready" json:"ready"`
	Client    Duration `yaml:"client" json:"client"`
	Drain     Duration `yaml:"drain" json:"drain"`
	Teardown  Duration `yaml:"teardown" json:"teardown"`
	KillGrace Duration `yaml:"kill_grace" json:"kill_grace"`
	// Each hook of a list, by the list (Scenario.HookDeadline): set by
	// default only where the list has hooks.
	SetupHook    Duration `yaml:"setup_hook" json:"setup_hook"`
	TeardownHook Duration `yaml:"teardown_hook" json:"teardown_hook"`
	BeforeAll    Duration `yaml:"before_all" json:"before_all"`
	AfterAll     Duration `yaml:"after_all" json:"after_all"`
}

// DefaultDeadlines apply to deadlines a scenario leaves out.
var DefaultDeadlines = Deadlines{
	Ready:     Duration(2 * time.Minute),
	Client:    Duration(10 * time.Minute),
	Drain:     Duration(30 * time.Second),
	Teardown:  Duration(time.Minute),
	KillGrace: Duration(10 * time.Second),
}

// MaxDeadline bounds every deadline: a run never waits longer on one phase.
const MaxDeadline = 24 * time.Hour

// Duration is a time.Duration written as "90s", "2m", "1h30m".
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a duration is a string such as 90s or 2m", n.Line)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (write it like 90s, 2m or 1h30m)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) String() string { return time.Duration(d).String() }

// Launcher holds options for each allocation backend.
type Launcher struct {
	Local LocalOptions `yaml:"local" json:"local"`
	Slurm SlurmOptions `yaml:"slurm" json:"slurm"`
	// Kubernetes configures the kubernetes backend.
	Kubernetes KubernetesOptions `yaml:"kubernetes" json:"kubernetes"`
}

// KubernetesOptions configure the kubernetes backend.
type KubernetesOptions struct {
	// Ranks says where the ranks run: "kubernetes" (default), each rank a
	// pod of its role's Indexed Job; "local", every rank a process of the
	// controller's one pod.
	Ranks string `yaml:"ranks" json:"ranks"`
	// APIServer is the API server's address (https://HOST:PORT) the
	// controller's pod talks to, where the Service address every pod is
	// given does not route (a cluster without kube-proxy); default
	// ABBENCH_KUBERNETES_API of abbench's environment, else the Service.
	APIServer string `yaml:"api_server" json:"api_server"`
	// Namespace runs every run in this one namespace as a tenant (nothing
	// cluster-scoped made, pods that pass Pod Security "restricted", the
	// campaign directory on Claim); default ABBENCH_KUBERNETES_NAMESPACE,
	// else kubectl's context's namespace when the account may not create
	// namespaces, else a namespace per run.
	Namespace string `yaml:"namespace" json:"namespace"`
	// ServiceAccount is the tenant's controller account, given (it holds
	// what a controller of rank pods needs); empty: one made per run.
	ServiceAccount string `yaml:"service_account" json:"service_account"`
	// Claim is the ReadWriteMany PersistentVolumeClaim the campaign
	// directory is on (default ABBENCH_KUBERNETES_CLAIM), mounted in every
	// pod at ClaimPath (default ABBENCH_KUBERNETES_CLAIM_PATH): the path
	// where the launching host sees that volume, so paths are equal on
	// both sides.
	Claim     string `yaml:"claim" json:"claim"`
	ClaimPath string `yaml:"claim_path" json:"claim_path"`
	// RunAsUser is the tenant pods' uid (and gid): default the launching
	// user's, or 65532 when abbench runs as root.
	RunAsUser int64 `yaml:"run_as_user" json:"run_as_user"`
}

// LocalOptions configure the local backend.
type LocalOptions struct {
	// CPUs pins each run to a CPU list such as "0-3" or "0,2".
	CPUs string `yaml:"cpus" json:"cpus"`
	// ConcurrentSafe says the arms' runs share nothing on this machine
	// that one run could slow for the other (no fixed port, file, device
	// or cache; CPUs and memory to spare for both), so that abbench run
	// --concurrent may run a block's runs at the same time here.
	ConcurrentSafe bool `yaml:"concurrent_safe" json:"concurrent_safe"`
}

// SlurmOptions configure the Slurm backend.
type SlurmOptions struct {
	Partition string `yaml:"partition" json:"partition"`
	Account   string `yaml:"account" json:"account"`
	QOS       string `yaml:"qos" json:"qos"`
	Time      string `yaml:"time" json:"time"`
	Nodes     int    `yaml:"nodes" json:"nodes"`
	// TasksPerNode bounds ranks per node (default: enough for every rank).
	TasksPerNode int      `yaml:"tasks_per_node" json:"tasks_per_node"`
	ExtraSbatch  []string `yaml:"extra_sbatch" json:"extra_sbatch"`
	ExtraSrun    []string `yaml:"extra_srun" json:"extra_srun"`
	Container    string   `yaml:"container_image" json:"container_image"`
	Mounts       []string `yaml:"container_mounts" json:"container_mounts"`
}
