// Package machine records what a reviewer asks first about a performance
// claim: the hardware and system software a run ran on. Facts come from
// /proc and /sys, and from nvidia-smi where it is installed; a fact that
// cannot be read stays empty rather than guessed.
package machine

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/redact"
)

// Facts describe one host.
type Facts struct {
	Host string `json:"host"`
	// Node is the Slurm node name (SLURMD_NODENAME) when under Slurm: two
	// nodes may share a host name.
	Node      string `json:"node,omitempty"`
	CPUModel  string `json:"cpuModel"`
	Cores     int    `json:"cores"`
	Governor  string `json:"governor,omitempty"` // cpu0's frequency governor
	Kernel    string `json:"kernel"`
	MemoryMiB int64  `json:"memoryMiB"`
	NUMANodes int    `json:"numaNodes"`
	GPUs      []GPU  `json:"gpus,omitempty"`
	// Image is the container image the run ran in, when the environment
	// says (ABBENCH_IMAGE, or a Slurm container plugin's SLURM_CONTAINER);
	// ImageDigest its digest (sha256:...) when known (imageDigest).
	Image       string `json:"image,omitempty"`
	ImageDigest string `json:"imageDigest,omitempty"`
	// CUDADriver is the CUDA version the driver supports (nvidia-smi
	// --version); CUDARuntime the CUDA toolkit where the facts were
	// collected (cudaRuntime); empty where there is none.
	CUDADriver  string `json:"cudaDriver,omitempty"`
	CUDARuntime string `json:"cudaRuntime,omitempty"`
	// ReportedBy says who collected the facts: ByController (abbench
	// itself, kept where no rank can write them), or ByRank, the first
	// rank wrapper on another host (written where every rank can write:
	// the system under test could have changed them).
	ReportedBy string `json:"reportedBy,omitempty"`
}

// ByController is ReportedBy of the controller's own facts.
const ByController = "controller"

// ByRank is ReportedBy of facts the rank named ROLE-RANK reported.
func ByRank(name string) string { return rankPrefix + name }

const rankPrefix = "rank "

// FromRank marks f as a rank's report, whatever it claims: facts read from
// where ranks write are never the controller's.
func (f Facts) FromRank() Facts {
	if !f.RankReported() || f.ReportedBy == rankPrefix {
		f.ReportedBy = ByRank("(unnamed)")
	}
	return f
}

// Redacted is f with every URL password replaced (internal/redact), in
// every field: an image may be named by a URL with credentials in it.
func (f Facts) Redacted() Facts {
	for _, s := range []*string{&f.Host, &f.Node, &f.CPUModel, &f.Governor, &f.Kernel, &f.Image, &f.ImageDigest, &f.CUDADriver, &f.CUDARuntime, &f.ReportedBy} {
		*s = redact.URL(*s)
	}
	f.GPUs = slices.Clone(f.GPUs)
	for i := range f.GPUs {
		g := &f.GPUs[i]
		for _, s := range []*string{&g.Name, &g.Driver, &g.Persistence, &g.ECC, &g.MIG} {
			*s = redact.URL(*s)
		}
	}
	return f
}

// GPU is what nvidia-smi --query-gpu reports of one GPU (gpuFields). The
// fields after Persistence are left out where nvidia-smi did not report
// them (an older driver, a GPU without the feature, facts recorded before
// abbench asked).
type GPU struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	MemoryMiB   int    `json:"memoryMiB"`
	SMClockMHz  int    `json:"smClockMHz"`
	MemClockMHz int    `json:"memClockMHz"`
	Persistence string `json:"persistence"`
	// AppClockMHz and AppMemClockMHz are the application clocks (nvidia-smi
	// -ac), DefaultAppClockMHz the default graphics one, MaxSMClockMHz
	// the SM clock's maximum.
	AppClockMHz        int `json:"appClockMHz,omitempty"`
	AppMemClockMHz     int `json:"appMemClockMHz,omitempty"`
	DefaultAppClockMHz int `json:"defaultAppClockMHz,omitempty"`
	MaxSMClockMHz      int `json:"maxSMClockMHz,omitempty"`
	// ECC and MIG are the current modes (Enabled or Disabled).
	ECC string `json:"ecc,omitempty"`
	MIG string `json:"mig,omitempty"`
	// PowerLimitW is the power limit the driver enforces, in watts.
	PowerLimitW float64 `json:"powerLimitW,omitempty"`
}

// Key names the host the facts are of: a Slurm node, or a host.
func (f Facts) Key() string {
	if f.Node != "" {
		return "node-" + f.Node
	}
	return "host-" + f.Host
}

// Merge adds to hosts each of more whose Key none of hosts has.
func Merge(hosts []Facts, more ...Facts) []Facts {
	for _, f := range more {
		if !slices.ContainsFunc(hosts, func(h Facts) bool { return h.Key() == f.Key() }) {
			hosts = append(hosts, f)
		}
	}
	return hosts
}

// Collect reads this host's facts, redacted; nvidia-smi gets at most
// timeout.
func Collect(timeout time.Duration) Facts {
	f := Facts{Cores: runtime.NumCPU(), CPUModel: cpuModel()}
	f.Host, _ = os.Hostname()
	f.Node = os.Getenv("SLURMD_NODENAME")
	f.Kernel = readLine("/proc/sys/kernel/osrelease")
	f.Governor = readLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	f.MemoryMiB = memTotalMiB()
	nodes, _ := filepath.Glob("/sys/devices/system/node/node[0-9]*")
	f.NUMANodes = len(nodes)
	f.GPUs = gpus(timeout)
	if len(f.GPUs) > 0 {
		f.CUDADriver = cudaDriver(timeout)
	}
	f.CUDARuntime = cudaRuntime(os.Getenv, "/usr/local/cuda/version.json")
	for _, k := range []string{"ABBENCH_IMAGE", "SLURM_CONTAINER"} {
		if v := os.Getenv(k); v != "" && f.Image == "" {
			f.Image = v
		}
	}
	f.ImageDigest = imageDigest(f.Image, os.Getenv("ABBENCH_IMAGE_DIGEST"))
	return f.Redacted()
}

func readLine(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer readonly.Close(f)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func memTotalMiB() int64 {
	for _, line := range strings.Split(readLine("/proc/meminfo"), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib / 1024
		}
	}
	return 0
}

// Class is what must be equal for two runs' numbers to be compared: the
// CPU model, the GPU models and counts, per host, and the host count. The
// hosts whose facts a rank reported come after the controller's, each
// marked so: a report (which the system under test could have written)
// can add to a class, never stand in for the controller's own facts.
func Class(hosts []Facts) string {
	var own, reported []string
	for _, h := range hosts {
		p := h.CPUModel
		for _, g := range h.GPUs {
			p += " + " + g.Name
		}
		if h.RankReported() {
			reported = append(reported, "reported by a rank: "+p)
		} else {
			own = append(own, p)
		}
	}
	slices.Sort(own)
	slices.Sort(reported)
	return strings.Join(append(own, reported...), " | ")
}

// RankReported says a rank reported f (ByRank): facts recorded before
// abbench said who reported them count as the controller's, as they did.
func (f Facts) RankReported() bool { return strings.HasPrefix(f.ReportedBy, rankPrefix) }

// Soft lists the softer facts: they may differ between runs, with a
// warning (driver and CUDA versions, application clocks, ECC, power limit,
// MIG, kernel, governor, memory, image). The GPUs' current clocks are not
// among them: read as a run starts they say whether the GPU was idle a
// moment before (345 MHz, then 1980 once it works), not how the machine is
// set, and a warning every run would teach reviewers to skip warnings.
func Soft(hosts []Facts) string { return strings.Join(SoftItems(hosts), ", ") }

// SoftItems are Soft's facts one by one (each host's, in host order), so a
// warning can name only those that differ.
func SoftItems(hosts []Facts) []string {
	var items []string
	sorted := slices.Clone(hosts)
	slices.SortFunc(sorted, func(a, b Facts) int { return strings.Compare(a.Host+a.Node, b.Host+b.Node) })
	for _, h := range sorted {
		host := ""
		if len(hosts) > 1 {
			host = h.Host + ": "
		}
		items = append(items, host+"kernel "+h.Kernel)
		for _, f := range [][2]string{{"governor", h.Governor}, {"image", h.Image}, {"image digest", h.ImageDigest}, {"CUDA driver", h.CUDADriver}, {"CUDA runtime", h.CUDARuntime}} {
			if f[1] != "" {
				items = append(items, host+f[0]+" "+f[1])
			}
		}
		items = append(items, host+"memory "+strconv.FormatInt(h.MemoryMiB, 10)+" MiB")
		for _, g := range h.GPUs {
			items = append(items, host+describeGPU(g))
		}
	}
	return items
}
