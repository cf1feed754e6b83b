package machine

import (
	"strings"
	"testing"
	"time"
)

func TestParseGPUs(t *testing.T) {
	// nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,persistence_mode --format=csv,nounits
	out := "name, driver_version, memory.total [MiB], clocks.current.sm [MHz], clocks.current.memory [MHz], persistence_mode\n" +
		"NVIDIA H200, 580.159.04, 143771, 1980, 3201, Enabled\nNVIDIA H200, 580.159.04, 143771, 345, 3201, Enabled\n"
	g := ParseQuery(out)
	if len(g) != 2 || g[0] != (GPU{Name: "NVIDIA H200", Driver: "580.159.04", MemoryMiB: 143771, SMClockMHz: 1980, MemClockMHz: 3201, Persistence: "Enabled"}) || g[1].SMClockMHz != 345 {
		t.Fatalf("%+v", g)
	}
	// The class holds the models, not the clocks; the softer facts hold
	// the application clocks (how the GPU is set), not the current ones
	// (whether it was idle as the run started).
	a, b := []Facts{{CPUModel: "x", GPUs: g[:1]}}, []Facts{{CPUModel: "x", GPUs: g[1:]}}
	if Class(a) != Class(b) || Soft(a) != Soft(b) {
		t.Errorf("current clocks: class %q/%q soft %q/%q", Class(a), Class(b), Soft(a), Soft(b))
	}
	set := []Facts{{CPUModel: "x", GPUs: []GPU{g[1]}}}
	set[0].GPUs[0].AppClockMHz, set[0].GPUs[0].AppMemClockMHz = 1500, 3201
	if Class(a) != Class(set) || Soft(a) == Soft(set) {
		t.Errorf("application clocks: class %q/%q soft %q/%q", Class(a), Class(set), Soft(a), Soft(set))
	}
}

func TestCollectReadsThisHost(t *testing.T) {
	f := Collect(time.Second)
	if f.Host == "" || f.Cores < 1 || f.Kernel == "" || f.MemoryMiB < 1 {
		t.Fatalf("%+v", f)
	}
}

// TestMergeKeysSlurmNodes: facts are of a host, or under Slurm of a node
// (two nodes may share a host name); Merge adds only hosts not yet there.
func TestMergeKeysSlurmNodes(t *testing.T) {
	ctl := Facts{Host: "h", Node: "node1"}
	hosts := Merge([]Facts{ctl}, Facts{Host: "h", Node: "node1", Cores: 9}, Facts{Host: "h", Node: "node2"}, Facts{Host: "h", Node: "node2"})
	if len(hosts) != 2 || hosts[0].Cores != 0 || hosts[1].Node != "node2" {
		t.Errorf("merged %+v", hosts)
	}
	if local := Merge([]Facts{{Host: "h"}}, Facts{Host: "h"}); len(local) != 1 {
		t.Errorf("one host twice: %+v", local)
	}
	if got := Merge([]Facts{{Host: "h"}}, Facts{Host: "h", Node: "n"}); len(got) != 2 {
		t.Errorf("a node and a host: %+v", got)
	}
}

// The facts a rank reported (any rank can write where they are kept) are
// part of a class only as reports: they can neither displace nor pass for
// the controller's own. Two runs on different controller hosts, each with
// a report of the other's hardware, are of different classes.
func TestClassKeepsTheControllersFactsApart(t *testing.T) {
	x, y := Facts{CPUModel: "x", ReportedBy: ByController}, Facts{CPUModel: "y", ReportedBy: ByController}
	rx, ry := Facts{CPUModel: "x", ReportedBy: ByRank("ctx-0")}, Facts{CPUModel: "y", ReportedBy: ByRank("ctx-0")}
	if a, b := Class([]Facts{x, ry}), Class([]Facts{y, rx}); a == b {
		t.Errorf("rank reports hid a different controller host: both %q", a)
	}
	if got := Class([]Facts{ry, x}); got != "x | reported by a rank: y" {
		t.Errorf("class %q", got)
	}
	// Facts recorded before abbench said who reported them keep their class.
	if got := Class([]Facts{{CPUModel: "y"}, {CPUModel: "x"}}); got != "x | y" {
		t.Errorf("legacy class %q", got)
	}
	// Whatever a report claims, read from where ranks write it is a rank's.
	for claim, want := range map[string]string{ByController: "rank (unnamed)", "": "rank (unnamed)", "rank ": "rank (unnamed)", ByRank("gen-1"): "rank gen-1"} {
		if got := (Facts{ReportedBy: claim}).FromRank().ReportedBy; got != want {
			t.Errorf("a report claiming %q is recorded as %q, want %q", claim, got, want)
		}
	}
}

// An image named by a URL with credentials (ABBENCH_IMAGE, or a Slurm
// container plugin's SLURM_CONTAINER) is recorded without the password,
// as every URL abbench records.
func TestCollectRedactsTheImage(t *testing.T) {
	for _, k := range []string{"ABBENCH_IMAGE", "SLURM_CONTAINER"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv("ABBENCH_IMAGE", "")
			t.Setenv(k, "docker://ci:img-s3cret-77@registry.example/app:1")
			f := Collect(time.Second)
			if strings.Contains(f.Image, "img-s3cret-77") || f.Image != "docker://ci:[REDACTED]@registry.example/app:1" {
				t.Errorf("image recorded as %q", f.Image)
			}
		})
	}
	f := Facts{Host: "h", GPUs: []GPU{{Name: "https://u:gpw-1@x/"}}}
	if r := f.Redacted(); r.GPUs[0].Name != "https://u:[REDACTED]@x/" || f.GPUs[0].Name != "https://u:gpw-1@x/" {
		t.Errorf("redacted %+v, original now %+v", r.GPUs, f.GPUs)
	}
}
