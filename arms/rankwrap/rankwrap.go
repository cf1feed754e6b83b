// Package rankwrap is the rank wrapper: the first thing every rank runs. It
// records, in the run's coordination namespace, what the rank's process
// received (role, rank, host, pid, token, the arm keys' values exactly as
// given, scheduler ids), then replaces itself with the rank's real command.
//
// It imports nothing but the standard library and atomicfile, so the
// abbench-rank binary built from it starts in about a millisecond: the
// wrapper runs once per rank, and its start-up is the controller's overhead.
package rankwrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
)

// Environment variables the controller gives every rank, read by the wrapper.
const (
	EnvToken   = "ABBENCH_TOKEN"
	EnvCoord   = "ABBENCH_COORD"
	EnvRole    = "ABBENCH_ROLE"
	EnvRank    = "ABBENCH_RANK"
	EnvArm     = "ABBENCH_ARM"
	EnvArmKeys = "ABBENCH_ARM_KEYS" // comma-separated arm keys to record
)

// Registration is what the rank wrapper records about the process it is
// about to become, written before it execs the real command.
type Registration struct {
	Role  string    `json:"role"`
	Rank  int       `json:"rank"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Token string    `json:"token"`
	Time  time.Time `json:"time"`
	// ArmEnv maps each arm key to its value exactly as the process received
	// it, or null when the process did not receive it.
	ArmEnv map[string]*string `json:"arm_env"`
	// Scheduler holds allocation details (for example SLURM_JOB_ID) when set.
	Scheduler map[string]string `json:"scheduler,omitempty"`
	Command   []string          `json:"command"`
}

// RegistrationPath is where a rank's registration lives in the namespace coord.
func RegistrationPath(coord, role string, rank int) string {
	return filepath.Join(coord, "ranks", fmt.Sprintf("%s-%d.json", role, rank))
}

// schedulerKeys are recorded in registrations when present.
var schedulerKeys = []string{"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURMD_NODENAME", "SLURM_RESTART_COUNT"}

// Launch is what a rank started by srun needs, written by the controller
// into the token namespace (mode 0600, removed at teardown): one srun step
// starts every rank of a role, and each rank finds its own file by its
// SLURM_PROCID. A file carries any value exactly (commas, spaces, '=',
// quotes, newlines, UTF-8), where srun --export would split or drop them.
type Launch struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Log  string   `json:"log"`
}

// LaunchPath is where the launch file of a role's rank lives.
func LaunchPath(coord, role string, rank int) string {
	return filepath.Join(coord, "launch", fmt.Sprintf("%s-%d.json", role, rank))
}

// stepKeys are inherited from srun's environment by a launched rank: the
// scheduler's ids and the devices it bound; the launch file's environment
// comes after them, so an arm that sets one of them wins.
var stepKeys = []string{"SLURM_", "SLURMD_", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES"}

// ExecLaunched is the wrapper of a rank started by srun: it reads its launch
// file (by SLURM_PROCID), takes that environment, appends its output to its
// log, registers, and execs the rank's command.
func ExecLaunched(dir, role string) error {
	rank, err := strconv.Atoi(os.Getenv("SLURM_PROCID"))
	if err != nil {
		return fmt.Errorf("rank wrapper: --launch needs SLURM_PROCID (start it with srun): %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%d.json", role, rank)))
	if err != nil {
		return fmt.Errorf("rank wrapper: role %s rank %d: %w", role, rank, err)
	}
	var l Launch
	if err := json.Unmarshal(data, &l); err != nil {
		return fmt.Errorf("rank wrapper: launch file of %s rank %d: %w", role, rank, err)
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
	env = append(env, l.Env...)
	os.Clearenv()
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	if l.Log != "" {
		f, err := os.OpenFile(l.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("rank wrapper: log: %w", err)
		}
		if err := syscall.Dup2(int(f.Fd()), 1); err != nil {
			return err
		}
		if err := syscall.Dup2(int(f.Fd()), 2); err != nil {
			return err
		}
	}
	return Exec(l.Argv)
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
	path, err := lookPath(argv[0], os.Getenv("PATH"))
	if err != nil {
		return fmt.Errorf("rank wrapper: role %s rank %d: %w", role, rank, err)
	}
	host, _ := os.Hostname()
	reg := Registration{Role: role, Rank: rank, Host: host, PID: os.Getpid(), Token: token, Time: time.Now().UTC(),
		ArmEnv: map[string]*string{}, Command: argv}
	if keys := os.Getenv(EnvArmKeys); keys != "" {
		for _, k := range strings.Split(keys, ",") {
			if v, ok := os.LookupEnv(k); ok {
				reg.ArmEnv[k] = &v
			} else {
				reg.ArmEnv[k] = nil
			}
		}
	}
	for _, k := range schedulerKeys {
		if v, ok := os.LookupEnv(k); ok {
			if reg.Scheduler == nil {
				reg.Scheduler = map[string]string{}
			}
			reg.Scheduler[k] = v
		}
	}
	data, err := json.MarshalIndent(reg, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Publish(RegistrationPath(coord, role, rank), data, 0o644); err != nil {
		return fmt.Errorf("rank wrapper: registering: %w", err)
	}
	return syscall.Exec(path, argv, os.Environ())
}

// lookPath finds file in the rank's PATH (not the wrapper's own).
func lookPath(file, pathEnv string) (string, error) {
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
	return "", fmt.Errorf("%q not found in the rank's PATH (%s)", file, pathEnv)
}

// ReadRegistration reads one rank's registration; ok is false when absent.
func ReadRegistration(coord, role string, rank int) (reg Registration, ok bool, err error) {
	data, err := os.ReadFile(RegistrationPath(coord, role, rank))
	if errors.Is(err, os.ErrNotExist) {
		return reg, false, nil
	}
	if err != nil {
		return reg, false, err
	}
	if err := json.Unmarshal(data, &reg); err != nil {
		return reg, false, fmt.Errorf("registration of %s rank %d: %w", role, rank, err)
	}
	return reg, true, nil
}
