package machine

import (
	"testing"
	"time"
)

func TestParseGPUs(t *testing.T) {
	// nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,persistence_mode --format=csv,noheader,nounits
	out := "NVIDIA H200, 580.159.04, 143771, 1980, 3201, Enabled\nNVIDIA H200, 580.159.04, 143771, 345, 3201, Enabled\n"
	g := ParseGPUs(out)
	if len(g) != 2 || g[0] != (GPU{"NVIDIA H200", "580.159.04", 143771, 1980, 3201, "Enabled"}) || g[1].SMClockMHz != 345 {
		t.Fatalf("%+v", g)
	}
	// The class holds the models, not the clocks.
	a, b := []Facts{{CPUModel: "x", GPUs: g[:1]}}, []Facts{{CPUModel: "x", GPUs: g[1:]}}
	if Class(a) != Class(b) || Soft(a) == Soft(b) {
		t.Errorf("class %q/%q soft %q/%q", Class(a), Class(b), Soft(a), Soft(b))
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
