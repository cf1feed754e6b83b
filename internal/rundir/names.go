package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// The names of the tree in the package comment, each spelled only here.
const (
	Latest          = "LATEST"
	StatusFile      = "status.json"
	EvidenceFile    = "evidence.json"
	PlanFile        = "plan.json"
	RunLock         = "run.lock" // held by the abbench run that runs the campaign (abbench run --resume refuses a held one)
	CalibrationFile = "calibration.json"
	BundleDir       = "bundle"
	BundleArchive   = "bundle.tar.gz"
	CoordDir        = "coord"
	RunsDir         = "runs"
	ControllerLog   = "controller.log"
	JobScript       = "job.sbatch"
	JobIDFile       = "job_id"
	PodFile         = "kube-pod.json"
	HooksDir        = "hooks" // the hooks' output: an attempt's setup and teardown, a campaign's before_all and after_all

	// Inside coord/.
	RanksDir    = "ranks"
	EnvDir      = "env"
	LaunchDir   = "launch"
	BarriersDir = "barriers"
	OffsetsFile = "offsets.json"
	AbortFile   = "abort"
	PortsFile   = "ports.json"   // {{.Port "NAME"}}: name to port, as allocated
	MachineFile = "machine.json" // names the controller's host (its facts stay in the controller's memory)
	MachinesDir = "machines"     // every other rank host's facts, KEY.json, as its first rank reported them
)

// Scratch is an attempt's scratch directory ({{.Scratch}}): short enough
// for a unix socket path (108 bytes) however deep the run directory is,
// named by a hash of the token so no two runs share one. The controller
// creates it (and the rank wrapper on other nodes) and removes it at
// teardown.
func Scratch(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "/tmp/abb-" + hex.EncodeToString(sum[:6])
}

// Attempt is the directory of the attempt named token in an arm's --out directory.
func Attempt(out, token string) string { return filepath.Join(out, token) }

// Coord is an attempt's coordination directory (its token namespace).
func Coord(attempt string) string { return filepath.Join(attempt, CoordDir) }

// rankFile is ROLE-RANK.json in dir.
func rankFile(dir, role string, rank int) string {
	return filepath.Join(dir, RankName(role, rank)+".json")
}

// RegistrationPath is where a rank's registration lives in the namespace coord.
func RegistrationPath(coord, role string, rank int) string {
	return rankFile(filepath.Join(coord, RanksDir), role, rank)
}

// RegistrationGlob matches every registration in the namespace coord.
func RegistrationGlob(coord string) string { return filepath.Join(coord, RanksDir, "*.json") }

// MachinePath is where the facts of the rank host named key (machine.Facts.Key) live.
func MachinePath(coord, key string) string { return filepath.Join(coord, MachinesDir, key+".json") }

// EnvPath is where the environment a rank was given is recorded.
func EnvPath(coord, role string, rank int) string {
	return rankFile(filepath.Join(coord, EnvDir), role, rank)
}

// LaunchDirOf is the directory of the launch files in the namespace coord.
func LaunchDirOf(coord string) string { return filepath.Join(coord, LaunchDir) }

// LaunchPath is where the launch file of a role's rank lives.
func LaunchPath(coord, role string, rank int) string {
	return rankFile(LaunchDirOf(coord), role, rank)
}

// LaunchFile is a launch file's path in a launch directory.
func LaunchFile(launchDir, role string, rank int) string { return rankFile(launchDir, role, rank) }

// RankName is ROLE-RANK, the stem of a rank's files.
func RankName(role string, rank int) string { return fmt.Sprintf("%s-%d", role, rank) }

// HookLog is the log of hook index (from 0) of hook list kind (setup,
// teardown, before_all, after_all), relative to the attempt or campaign
// directory it belongs to: hooks/KIND-INDEX.log.
func HookLog(kind string, index int) string {
	return filepath.Join(HooksDir, fmt.Sprintf("%s-%d.log", kind, index))
}

// RunDir is the directory of a campaign's run index (from 1) of arm.
func RunDir(campaign string, index int, arm string) string {
	return filepath.Join(campaign, RunsDir, RunID(index, arm))
}

// RunID names a campaign's run: N-ARM.
func RunID(index int, arm string) string { return fmt.Sprintf("%d-%s", index, arm) }

// RunIndex is the index of a run directory's name N-ARM, 0 if it has none.
func RunIndex(name string) int {
	n, _, _ := strings.Cut(name, "-")
	i, err := strconv.Atoi(n)
	if err != nil {
		return 0
	}
	return i
}

// SlurmOutput is the output file of Slurm job id in a run directory.
func SlurmOutput(dir, id string) string { return filepath.Join(dir, "slurm-"+id+".out") }

// SlurmOutputPattern is the --output pattern of a run directory's batch job.
func SlurmOutputPattern(dir string) string { return SlurmOutput(dir, "%j") }

// BarrierDir is the directory of barrier name in the namespace coord.
func BarrierDir(coord, name string) string { return filepath.Join(coord, BarriersDir, name) }
