// Package rankwrap is the rank wrapper: the first thing every rank runs. It
// records, in the run's coordination namespace, what the rank's process
// received (role, rank, host, pid, token, the arm keys' values exactly as
// given, scheduler ids) and, once per host, the host's machine facts, then
// replaces itself with the rank's real command.
//
// It imports nothing but the standard library, atomicfile, machine, redact and rundir, so the
// abbench-rank binary built from it starts in about a millisecond: the
// wrapper runs once per rank, and its start-up is the controller's overhead.
package rankwrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
)

// Environment variables the controller gives every rank, read by the wrapper.
const (
	EnvToken = "ABBENCH_TOKEN"
	EnvCoord = "ABBENCH_COORD"
	// EnvScratch is the attempt's scratch directory ({{.Scratch}}): the
	// wrapper creates it, for ranks on nodes other than the controller's.
	EnvScratch = "ABBENCH_SCRATCH"
	// EnvUser is the user the rank runs as (the role's user:).
	EnvUser    = "ABBENCH_USER"
	EnvRole    = "ABBENCH_ROLE"
	EnvRank    = "ABBENCH_RANK"
	EnvArm     = "ABBENCH_ARM"
	EnvArmKeys = "ABBENCH_ARM_KEYS" // comma-separated arm keys to record
	// EnvArgv, when set, is the command as records may show it (a JSON
	// list, secrets redacted by the controller): the registration records
	// it instead of the real argv.
	EnvArgv = "ABBENCH_ARGV"
	// EnvHashExe, when "1" (the arms are builds), makes the wrapper record
	// the SHA-256 of the executable it starts.
	EnvHashExe = "ABBENCH_HASH_EXE"
)

// Registration is what the rank wrapper records (rundir's type).
type Registration = rundir.Registration

// RegistrationPath is where a rank's registration lives in the namespace coord.
func RegistrationPath(coord, role string, rank int) string {
	return rundir.RegistrationPath(coord, role, rank)
}

// schedulerKeys are recorded in registrations when present.
// A rank pod's are its pod, node and namespace (the downward API's) and
// its Job's completion index.
var schedulerKeys = []string{"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURMD_NODENAME", "SLURM_RESTART_COUNT",
	rundir.SchedulerKubernetesPod, rundir.SchedulerKubernetesNode, rundir.SchedulerKubernetesNamespace, "JOB_COMPLETION_INDEX"}

// stepKeys are inherited from srun's or the pod's environment by a
// launched rank: the scheduler's ids and the devices it bound; the launch
// file's environment comes after them, so an arm that sets one of them wins.
var stepKeys = []string{"SLURM_", "SLURMD_", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES",
	"ABBENCH_KUBERNETES_POD=", "ABBENCH_KUBERNETES_NODE=", "ABBENCH_KUBERNETES_NAMESPACE=", "ABBENCH_KUBERNETES_POD_IP=", "JOB_COMPLETION_INDEX="}

// Main is the wrapper's command line, after its "--": COMMAND [ARG...];
// or --launch DIR ROLE, a rank srun or a Job's pod started (ExecLaunched); or --launch
// DIR ROLE RANK, a rank in a container (ExecInContainer); or
// --launch-image DIR ROLE, a pod of a role's own image (ExecInImage); or
// --install DIR, the wrapper copying itself into DIR (Install). It
// returns only on error, or nil once installed.
func Main(args []string) error {
	if len(args) == 2 && args[0] == "--install" {
		return Install(args[1])
	}
	if len(args) == 3 && args[0] == "--launch-image" {
		return ExecInImage(args[1], args[2])
	}
	if len(args) == 4 && args[0] == "--launch" {
		rank, err := strconv.Atoi(args[3])
		if err != nil || rank < 0 {
			return fmt.Errorf("rank wrapper: --launch %s %s %s: the rank is a whole number", args[1], args[2], args[3])
		}
		return ExecInContainer(args[1], args[2], rank)
	}
	if len(args) == 3 && args[0] == "--launch" {
		return ExecLaunched(args[1], args[2])
	}
	return Exec(args)
}

// ExecLaunched is the wrapper of a rank started by srun or as a pod of an
// Indexed Job: it reads its launch file (by SLURM_PROCID, or the pod's
// JOB_COMPLETION_INDEX), takes that environment, appends its output to its
// log, registers, and execs the rank's command.
func ExecLaunched(dir, role string) error {
	rank, err := launchedRank()
	if err != nil {
		return err
	}
	var env []string
	for _, kv := range os.Environ() {
		for _, p := range stepKeys {
			if strings.HasPrefix(kv, p) {
				env = append(env, kv)
				break
			}
		}
	}
	return execLaunch(dir, role, rank, env, false)
}

// launchedRank is the rank srun (SLURM_PROCID) or the Job
// (JOB_COMPLETION_INDEX) gave this process.
func launchedRank() (int, error) {
	name := "SLURM_PROCID"
	if _, ok := os.LookupEnv(name); !ok {
		if _, ok := os.LookupEnv("JOB_COMPLETION_INDEX"); ok {
			name = "JOB_COMPLETION_INDEX"
		}
	}
	rank, err := strconv.Atoi(os.Getenv(name))
	if err != nil || rank < 0 {
		return 0, fmt.Errorf("rank wrapper: a launched rank needs SLURM_PROCID (start it with srun) or JOB_COMPLETION_INDEX (a pod of an Indexed Job): %s=%q", name, os.Getenv(name))
	}
	return rank, nil
}

// ExecInContainer is the wrapper of a rank in a container, its launch file
// named by its rank: the image's own environment comes first, as the
// inherited base does on the host, and without any arm key (a host rank's
// base has none); then the launch file's, so the arm's values win over
// the image's.
func ExecInContainer(dir, role string, rank int) error {
	// Slurm (22.05) sets none of a task's own variables in its container:
	// a step of one node ran on that node, which the registration names.
	if _, ok := os.LookupEnv("SLURMD_NODENAME"); !ok && os.Getenv("SLURM_STEP_NUM_NODES") == "1" {
		if node := os.Getenv("SLURM_STEP_NODELIST"); node != "" {
			if err := os.Setenv("SLURMD_NODENAME", node); err != nil {
				return err
			}
		}
	}
	return execLaunch(dir, role, rank, os.Environ(), true)
}

// execLaunch takes base and then the launch file's environment (base's
// arm keys dropped first, with dropArmKeys), appends the rank's output to
// its log, registers, and execs the rank's command.
func execLaunch(dir, role string, rank int, base []string, dropArmKeys bool) error {
	data, err := os.ReadFile(rundir.LaunchFile(dir, role, rank))
	if err != nil {
		return fmt.Errorf("rank wrapper: role %s rank %d: %w", role, rank, err)
	}
	var l rundir.Launch
	if err := json.Unmarshal(data, &l); err != nil {
		return fmt.Errorf("rank wrapper: launch file of %s rank %d: %w", role, rank, err)
	}
	if dropArmKeys {
		base = withoutArmKeys(base, l.Env)
	}
	env := append(base, l.Env...)
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if err := os.Setenv(k, v); err != nil {
				return fmt.Errorf("rank wrapper: environment %s: %w", k, err)
			}
		}
	}
	if l.Dir != "" {
		if err := os.Chdir(l.Dir); err != nil {
			return fmt.Errorf("rank wrapper: %s rank %d: %w", role, rank, err)
		}
	}
	if l.Log != "" {
		f, err := os.OpenFile(l.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("rank wrapper: log: %w", err)
		}
		if err := dupTo(int(f.Fd()), 1); err != nil {
			return err
		}
		if err := dupTo(int(f.Fd()), 2); err != nil {
			return err
		}
	}
	return Exec(l.Argv)
}

// withoutArmKeys is base without the arm keys the launch environment
// names (EnvArmKeys).
func withoutArmKeys(base, launch []string) []string {
	var keys []string
	for _, kv := range launch {
		if v, ok := strings.CutPrefix(kv, EnvArmKeys+"="); ok && v != "" {
			keys = strings.Split(v, ",")
		}
	}
	var out []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(keys, k) {
			out = append(out, kv)
		}
	}
	return out
}

// Exec is the rank wrapper: it registers the rank in the coordination
// namespace named by its environment, then replaces itself with argv.
// It returns only on error.
func Exec(argv []string) error {
	if len(argv) == 0 {
		return errors.New("rank wrapper: no command")
	}
	coord, role, token := os.Getenv(EnvCoord), os.Getenv(EnvRole), os.Getenv(EnvToken)
	rank, err := strconv.Atoi(os.Getenv(EnvRank))
	if coord == "" || role == "" || token == "" || err != nil {
		return fmt.Errorf("rank wrapper: %s, %s, %s and %s must be set by the controller", EnvCoord, EnvRole, EnvRank, EnvToken)
	}
	path, err := LookPath(argv[0], os.Getenv("PATH"))
	if err != nil {
		return fmt.Errorf("rank wrapper: role %s rank %d: %w", role, rank, err)
	}
	if dir := os.Getenv(EnvScratch); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("rank wrapper: role %s rank %d: scratch directory: %w", role, rank, err)
		}
	}
	recordMachine(coord, rundir.RankName(role, rank))
	host, _ := os.Hostname()
	reg := Registration{Schema: rundir.RegistrationSchema, Role: role, Rank: rank, Host: redact.URL(host), PID: os.Getpid(), Token: token, Time: time.Now().UTC(),
		ArmEnv: map[string]*string{}, Command: shownArgv(argv), User: os.Getenv(EnvUser)}
	if keys := os.Getenv(EnvArmKeys); keys != "" {
		for _, k := range strings.Split(keys, ",") {
			if v, ok := os.LookupEnv(k); ok {
				reg.ArmEnv[k] = &v
			} else {
				reg.ArmEnv[k] = nil
			}
		}
	}
	if os.Getenv(EnvHashExe) == "1" {
		sum, err := filehash.SHA256(path)
		if err != nil {
			return fmt.Errorf("rank wrapper: role %s rank %d: hashing %s: %w", role, rank, path, err)
		}
		reg.ExeSHA256 = sum
	}
	for _, k := range schedulerKeys {
		if v, ok := os.LookupEnv(k); ok {
			if reg.Scheduler == nil {
				reg.Scheduler = map[string]string{}
			}
			reg.Scheduler[k] = redact.Value(k, v)
		}
	}
	data, err := json.MarshalIndent(reg, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Publish(RegistrationPath(coord, role, rank), data, 0o644); err != nil {
		return fmt.Errorf("rank wrapper: registering: %w", err)
	}
	if reg.User != "" {
		if err := becomeUser(reg.User); err != nil {
			return fmt.Errorf("rank wrapper: role %s rank %d: %w", role, rank, err)
		}
	}
	if err := keepParentDeathSignal(); err != nil { // after becoming the user: a change of ids clears it
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// recordMachine writes the facts of this rank's host once per host, so a
// bundle says what every node of an allocation is, not only the
// controller's: the first rank on a host claims the writing with an
// exclusive create, and writes nothing when the controller's facts already
// cover its host. A fact that cannot be written is left out, never fatal:
// the run does not depend on it, and compare only warns where it is absent.
// The facts name the rank that reported them (rank is ROLE-RANK): any rank
// can write there, so they are the rank's report, not the controller's.
func recordMachine(coord, rank string) {
	here := machine.Facts{Node: os.Getenv("SLURMD_NODENAME")}
	here.Host, _ = os.Hostname()
	path := rundir.MachinePath(coord, here.Key())
	claim, err := os.OpenFile(strings.TrimSuffix(path, ".json")+".lock", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return // another rank on this host has it (or the directory is not there)
	}
	_ = claim.Close() // an empty lock file: its close loses nothing
	var controller []machine.Facts
	_ = rundir.ReadJSON(filepath.Join(coord, rundir.MachineFile), &controller) // unreadable: this rank writes its host's facts itself
	if len(machine.Merge(controller, here)) == len(controller) {
		return
	}
	facts := machine.Collect(5 * time.Second)
	facts.ReportedBy = machine.ByRank(rank)
	if data, err := json.MarshalIndent(facts, "", "  "); err == nil {
		_ = atomicfile.Publish(path, data, 0o644) // left out, never fatal: the controller's facts stand without it
	}
}

// becomeUser takes name's user, group and supplementary group ids, and
// its HOME, USER and LOGNAME, for the rank about to be exec'd.
func becomeUser(name string) error {
	a, err := lookupAccount(name)
	if err != nil {
		return err
	}
	if err := syscall.Setgroups(a.groups); err != nil {
		return fmt.Errorf("user %s: setting its groups (abbench must run as root for user:): %w", name, err)
	}
	if err := syscall.Setgid(a.gid); err != nil {
		return fmt.Errorf("user %s: setgid %d: %w", name, a.gid, err)
	}
	if err := syscall.Setuid(a.uid); err != nil {
		return fmt.Errorf("user %s: setuid %d: %w", name, a.uid, err)
	}
	for k, v := range map[string]string{"HOME": a.home, "USER": name, "LOGNAME": name} {
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("user %s: %s: %w", name, k, err)
		}
	}
	return nil
}

// shownArgv is the command as the registration records it: the
// controller's redacted copy when it gave one, and never a URL's password.
func shownArgv(argv []string) []string {
	shown := argv
	if data := os.Getenv(EnvArgv); data != "" {
		var a []string
		if json.Unmarshal([]byte(data), &a) == nil && len(a) == len(argv) {
			shown = a
		}
	}
	out := make([]string, len(shown))
	for i, a := range shown {
		out[i] = redact.URL(a)
	}
	return out
}

// LookPath finds file in the rank's PATH (not the wrapper's own): the
// program a rank runs, as the wrapper exec's it (a name with a slash is
// taken as it is).
func LookPath(file, pathEnv string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	// The name at both ends: a summary that cuts the middle of a long
	// reason (the rank's exit before this line) keeps its tail.
	return "", fmt.Errorf("%q not found in the rank's PATH (%s): is %q misspelled, or not installed where the rank runs?", file, shortPath(pathEnv), file)
}

// shortPath is a PATH for a message: its first directories and how many
// more, so that the question after it survives a log line's cut and a
// summary's (a PATH of a dozen directories took the whole line).
func shortPath(pathEnv string) string {
	const shown = 3
	dirs := filepath.SplitList(pathEnv)
	if len(dirs) <= shown {
		return pathEnv
	}
	return fmt.Sprintf("%s and %d more", strings.Join(dirs[:shown], string(filepath.ListSeparator)), len(dirs)-shown)
}
