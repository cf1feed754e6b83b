package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "nvidia-smi", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Real nvidia-smi output (testdata/nvidia-smi/SOURCES.md): the query with
// units and every field of driver 580.173.02, and the query Collect makes
// (nounits, long header names) on the H200 of the committed GPU bundles;
// each column is read by its header, whatever else is there.
func TestParseQueryOfRealOutput(t *testing.T) {
	want := GPU{Name: "NVIDIA H200", Driver: "580.173.02", MemoryMiB: 143771, SMClockMHz: 345, MemClockMHz: 3201, Persistence: "Enabled",
		AppClockMHz: 1980, AppMemClockMHz: 3201, DefaultAppClockMHz: 1980, MaxSMClockMHz: 1980, ECC: "Enabled", MIG: "Disabled", PowerLimitW: 700}
	if g := ParseQuery(readTestdata(t, "h200-580.173.02.csv")); len(g) != 1 || g[0] != want {
		t.Errorf("every field, with units:\n got %+v\nwant %+v", g, want)
	}
	want.Driver, want.SMClockMHz = "580.159.04", 375
	if g := ParseQuery(readTestdata(t, "h200-580.159.04-nounits.csv")); len(g) != 1 || g[0] != want {
		t.Errorf("Collect's query:\n got %+v\nwant %+v", g, want)
	}
	f := Facts{Host: "vm", CPUModel: "Xeon", Cores: 32, Kernel: "6.18", GPUs: []GPU{want, want}, CUDADriver: "13.0", CUDARuntime: "13.0.2", Image: "pytorch:25.01"}
	if d := Describe([]Facts{f}); d != "host-vm: Xeon, 32 cores, kernel 6.18; 2 x NVIDIA H200 (driver 580.159.04, application clocks 1980/3201 MHz (graphics/memory), "+
		"max SM clock 1980 MHz, ECC enabled, MIG disabled, persistence enabled, power limit 700 W); driver supports CUDA 13.0; CUDA runtime 13.0.2; image pytorch:25.01, digest unknown" {
		t.Errorf("described as %q", d)
	}
	if v := ParseVersion(readTestdata(t, "h200-580.173.02-version.txt")); v["CUDA Version"] != "13.0" || v["DRIVER version"] != "580.173.02" {
		t.Errorf("version %v", v)
	}
	// What nvidia-smi does not have stays empty; output without a row or a
	// header is no GPU.
	if g := ParseQuery("name, ecc.mode.current, power.limit [W], mig.mode.current\nTesla T4, [N/A], [Not Supported], [N/A]\n"); len(g) != 1 || g[0] != (GPU{Name: "Tesla T4"}) {
		t.Errorf("unsupported fields: %+v", g)
	}
	for _, out := range []string{"", "name, driver_version\n", "Field \"x\" is not a valid field to query.\n"} {
		if g := ParseQuery(out); len(g) != 0 {
			t.Errorf("%q: %+v", out, g)
		}
	}
}

// A GPU-less machine, or one whose nvidia-smi is missing or fails, has no
// GPU facts and no CUDA driver; Collect still reads the rest.
func TestCollectWithoutGPUs(t *testing.T) {
	dir := t.TempDir()
	fail := filepath.Join(dir, "nvidia-smi")
	if err := os.WriteFile(fail, []byte("#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{t.TempDir(), dir} { // none, and one that fails
		t.Setenv("PATH", path)
		f := Collect(5e9)
		if f.GPUs != nil || f.CUDADriver != "" || f.Kernel == "" {
			t.Errorf("PATH %s: %+v", path, f)
		}
		if d := Describe([]Facts{f}); strings.Contains(d, " x ") || !strings.Contains(d, "no container image recorded") {
			t.Errorf("described as %q", d)
		}
	}
}

// A driver that refuses a field Collect asks for (an older one) is asked
// the basic fields alone.
func TestCollectFallsBackToTheBasicQuery(t *testing.T) {
	dir := t.TempDir()
	script := `#!/bin/sh
case "$*" in
*mig.mode.current*) echo 'Field "mig.mode.current" is not a valid field to query.'; exit 2;;
*--query-gpu*) printf 'name, driver_version, memory.total [MiB], clocks.current.sm [MHz], clocks.current.memory [MHz], persistence_mode\nTesla V100-SXM2-16GB, 418.87.01, 16130, 1530, 877, Enabled\n';;
*--version*) printf 'NVIDIA-SMI version  : 418.87.01\nCUDA Version        : 10.1\n';;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	f := Collect(5e9)
	if len(f.GPUs) != 1 || f.GPUs[0].Name != "Tesla V100-SXM2-16GB" || f.GPUs[0].SMClockMHz != 1530 || f.GPUs[0].ECC != "" || f.CUDADriver != "10.1" {
		t.Errorf("%+v", f)
	}
	if d := Describe([]Facts{f}); !strings.Contains(d, "1 x Tesla V100-SXM2-16GB (driver 418.87.01, persistence enabled); driver supports CUDA 10.1") {
		t.Errorf("described as %q", d)
	}
}

func TestSoftwareFacts(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	dir := t.TempDir()
	vj := filepath.Join(dir, "version.json")
	os.WriteFile(vj, []byte(`{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}`), 0o644)
	if got := cudaRuntime(env(map[string]string{"CUDA_VERSION": "13.0.2"}), vj); got != "13.0.2" {
		t.Errorf("CUDA_VERSION: %q", got)
	}
	if got := cudaRuntime(env(nil), vj); got != "12.4.1" {
		t.Errorf("version.json: %q", got)
	}
	if got := cudaRuntime(env(nil), filepath.Join(dir, "none")); got != "" {
		t.Errorf("none: %q", got)
	}
	d := "sha256:" + strings.Repeat("ab", 32)
	for _, c := range [][3]string{
		{"nvcr.io/nvidia/pytorch@" + d, "", d}, {"nvcr.io/nvidia/pytorch:25.01-py3", "nvcr.io/nvidia/pytorch@" + d, d},
		{"img", d, d}, {"img", "sha256:short", ""}, {"img:1", "", ""},
	} {
		if got := imageDigest(c[0], c[1]); got != c[2] {
			t.Errorf("imageDigest(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	log := []byte("vm:610:610 [0] NCCL INFO cudaDriverVersion 13000\nvm:610:610 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n")
	if got := NCCLVersion(log); got != "2.28.9+cuda13.0" {
		t.Errorf("NCCL %q", got)
	}
	if got := NCCLVersion([]byte("no nccl here")); got != "" {
		t.Errorf("NCCL %q", got)
	}
}
