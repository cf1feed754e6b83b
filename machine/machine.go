// Package machine records what a reviewer asks first about a performance
// claim: the hardware and system software a run ran on. Facts come from
// /proc and /sys, and from nvidia-smi where it is installed; a fact that
// cannot be read stays empty rather than guessed.
package machine

import (
	"bufio"
	"context"
	"os"
	"os/exec"
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
	// says (ABBENCH_IMAGE, or a Slurm container plugin's SLURM_CONTAINER).
	Image string `json:"image,omitempty"`
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
	for _, s := range []*string{&f.Host, &f.Node, &f.CPUModel, &f.Governor, &f.Kernel, &f.Image, &f.ReportedBy} {
		*s = redact.URL(*s)
	}
	f.GPUs = slices.Clone(f.GPUs)
	for i := range f.GPUs {
		g := &f.GPUs[i]
		for _, s := range []*string{&g.Name, &g.Driver, &g.Persistence} {
			*s = redact.URL(*s)
		}
	}
	return f
}

// GPU is what nvidia-smi --query-gpu reports of one GPU.
type GPU struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	MemoryMiB   int    `json:"memoryMiB"`
	SMClockMHz  int    `json:"smClockMHz"`
	MemClockMHz int    `json:"memClockMHz"`
	Persistence string `json:"persistence"`
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
	for _, k := range []string{"ABBENCH_IMAGE", "SLURM_CONTAINER"} {
		if v := os.Getenv(k); v != "" && f.Image == "" {
			f.Image = v
		}
	}
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

// gpus asks nvidia-smi, when it is installed.
func gpus(timeout time.Duration) []GPU {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,persistence_mode",
		"--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil
	}
	return ParseGPUs(string(out))
}

// ParseGPUs reads nvidia-smi's CSV (noheader, nounits) of the query Collect
// makes.
func ParseGPUs(csv string) []GPU {
	var gs []GPU
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 6 {
			continue
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		n := func(s string) int { v, _ := strconv.Atoi(s); return v }
		gs = append(gs, GPU{Name: f[0], Driver: f[1], MemoryMiB: n(f[2]), SMClockMHz: n(f[3]), MemClockMHz: n(f[4]), Persistence: f[5]})
	}
	return gs
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
// warning (driver, clocks, kernel, governor, memory, image).
func Soft(hosts []Facts) string {
	var parts []string
	for _, h := range hosts {
		p := "kernel " + h.Kernel + ", governor " + h.Governor + ", memory " + strconv.FormatInt(h.MemoryMiB, 10) + " MiB"
		if h.Image != "" {
			p += ", image " + h.Image
		}
		for _, g := range h.GPUs {
			p += ", driver " + g.Driver + ", clocks " + strconv.Itoa(g.SMClockMHz) + "/" + strconv.Itoa(g.MemClockMHz) + " MHz, persistence " + g.Persistence
		}
		parts = append(parts, p)
	}
	slices.Sort(parts)
	return strings.Join(parts, " | ")
}
