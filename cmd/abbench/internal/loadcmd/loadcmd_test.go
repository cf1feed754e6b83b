package loadcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/redact"
)

// run runs abbench load with args, its output discarded.
func run(t *testing.T, args ...string) error {
	t.Helper()
	cmd := New()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// TestLoadReadsOnlyThePromptsItSends: --requests 4 of a file whose fifth
// line is 64 MiB (24 under -short) reads the first four prompts and no
// further.
func TestLoadReadsOnlyThePromptsItSends(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [{"text": "a"}], "usage": {"prompt_tokens": 2, "completion_tokens": 1}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.jsonl")
	var b bytes.Buffer
	for i := range 4 {
		fmt.Fprintf(&b, "[%d, %d]\n", i, i+1)
	}
	// Under go test -short the fifth line is 24 MiB, not 64: writing the
	// file was most of this package's quick-loop CPU, and a read of the
	// line still allocates past the 16 MiB this test allows.
	large := 22 << 20
	if testing.Short() {
		large = 8 << 20
	}
	b.WriteString("[" + strings.Repeat("7, ", large) + "7]\n")
	if err := os.WriteFile(prompts, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b = bytes.Buffer{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := run(t, "--url", srv.URL, "--model", "m", "--prompts", prompts, "--requests", "4", "--stream=false", "--out", filepath.Join(dir, "r.json"))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("abbench load --requests 4 allocated %d MiB for a file of 4 small prompts and a large fifth", grew>>20)
	}
}

// countingServer answers every completion with one token, counting the
// requests it was sent.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [{"text": "a"}], "usage": {"prompt_tokens": 2, "completion_tokens": 1}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// twoPrompts is a test directory holding a prompts file of two prompts.
func twoPrompts(t *testing.T) (dir, prompts string) {
	dir = t.TempDir()
	prompts = filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(prompts, []byte("[1, 2]\n[3, 4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, prompts
}

// TestLoadSpoolDirRefused: --out in a directory that does not exist is a
// usage error naming it, before any request is sent (the run keeps what
// its files say of each request there as it goes). Before, every request
// was sent and the run failed when it wrote the record.
func TestLoadSpoolDirRefused(t *testing.T) {
	srv, served := countingServer(t)
	dir, prompts := twoPrompts(t)
	missing := filepath.Join(dir, "no-such-dir")
	err := run(t, "--url", srv.URL, "--model", "m", "--prompts", prompts, "--stream=false", "--out", filepath.Join(missing, "r.json"))
	var ce *cli.Error
	if !errors.As(err, &ce) || ce.Code != cli.ExitUsage || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err %v (%T), want a usage error naming %s", err, err, missing)
	}
	if n := served.Load(); n != 0 {
		t.Errorf("the server was sent %d requests before the run was refused", n)
	}
}

// TestLoadRedactsTheEnvironmentsSecrets: a server that quotes back the
// API key, another secret-named variable's value and a value the
// controller listed as one its templates read has none of them written.
func TestLoadRedactsTheEnvironmentsSecrets(t *testing.T) {
	const key, token, route = "sk-load-key-0123456789", "tok-from-env-9876", "route-secret-55"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("MY_GATEWAY_TOKEN", token)
	t.Setenv(redact.EnvValues, `["`+route+`"]`) // the controller's list of what the templates read
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": {"message": "bad credentials %s for gateway %s on %s"}}`, r.Header.Get("Authorization"), token, route)
	}))
	defer srv.Close()
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(prompts, []byte("[1, 2]\n[3, 4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"r.json", "r.jsonl", "sent.records"}
	err := run(t, "--url", srv.URL, "--model", "m", "--prompts", prompts, "--stream=false",
		"--out", filepath.Join(dir, files[0]), "--per-request", filepath.Join(dir, files[1]), "--records", filepath.Join(dir, files[2]))
	if err == nil {
		t.Fatal("every request failed, and abbench load exited 0")
	}
	texts := map[string]string{"the error": err.Error()}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(data)
	}
	if !strings.Contains(texts["r.jsonl"], "[REDACTED]") {
		t.Errorf("the per-request records show no redacted error:\n%s", texts["r.jsonl"])
	}
	for where, text := range texts {
		for _, secret := range []string{key, token, route} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
	}
}

// A 0 given to a flag whose 0 stands for its default is refused, naming
// the flag, before anything is sent: --rounds 0 ran a round, --burstiness
// 0 a Poisson schedule, and the record said 1. Left out, each keeps its
// default.
func TestGivenZeroIsRefused(t *testing.T) {
	prompts := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(prompts, []byte("[1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--url", "http://127.0.0.1:1", "--model", "m", "--prompts", prompts, "--out", filepath.Join(t.TempDir(), "r.json")}
	for _, flag := range [][]string{{"--rounds", "0"}, {"--concurrency", "0"}, {"--requests", "0"}, {"--rate", "5", "--burstiness", "0"}, {"--duration", "0s"}} {
		err := run(t, append(slices.Clone(base), flag...)...)
		var ce *cli.Error
		if !errors.As(err, &ce) || ce.Code != cli.ExitUsage || !strings.Contains(err.Error(), flag[len(flag)-2]+" 0") {
			t.Errorf("%v: %v, want a usage error naming it", flag, err)
		}
	}
}

// TestLoadNamesABadOptionAsItsFlag: each refused option is named as the
// flag that set it, one line each, and nothing is sent. Before, two bad
// options read "rounds and concurrency must be at least 1, max tokens at
// least 0 (got 1, 1, -1)" and "duration 0s, warm-up -2, ramp 0s".
func TestLoadNamesABadOptionAsItsFlag(t *testing.T) {
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(prompts, []byte("[1, 2]\n[3, 4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(t, "--url", "http://127.0.0.1:1", "--model", "m", "--prompts", prompts, "--out", filepath.Join(dir, "r.json"),
		"--max-tokens", "-1", "--warmup", "-2", "--request-timeout", "-1s")
	var ce *cli.Error
	if !errors.As(err, &ce) || ce.Code != cli.ExitUsage {
		t.Fatalf("err %v (%T), want a usage error", err, err)
	}
	want := "--max-tokens -1: at least 0 (0: not sent)\n--request-timeout -1s: must be above 0\n--warmup -2: not below 0 (0: no warm-up)"
	if got := ce.Err.Error(); got != want {
		t.Errorf("refused with\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run wrote its record: %v", err)
	}
}

// TestLoadStoppedSaysTheSummarysCounts: an interrupted run's last word
// counts as its summary does (succeeded, failed, not sent), where it
// said "56 of 5120 requests done" under a progress line of 60 done and
// a summary of 5064 failed.
func TestLoadStoppedSaysTheSummarysCounts(t *testing.T) {
	s := loadgen.Summary{Requested: 5120, Completed: 56, Failed: 5064, Failures: map[string]int{loadgen.KindCancelled: 4, loadgen.KindNotSent: 5060}}
	err := loadStatus(context.Canceled, s, nil, true)
	if want := "stopped: of 5120 requests, 56 succeeded, 4 failed and 5060 were not sent; the record holds each"; err == nil || err.Error() != want {
		t.Errorf("stopped with %v, want %q", err, want)
	}
}

// TestLoadRefusesAnUnwritableRecordsPathFirst: --records (or any file
// flag) in a directory that does not exist is refused, naming its flag,
// before any request is sent. Before, the run sent every request, wrote
// --out, and failed on --records at its end.
func TestLoadRefusesAnUnwritableRecordsPathFirst(t *testing.T) {
	srv, served := countingServer(t)
	dir, prompts := twoPrompts(t)
	for _, flag := range []string{"--records", "--multiset-records", "--warmup-records", "--per-request"} {
		missing := filepath.Join(dir, "no-such-dir", "f")
		err := run(t, "--url", srv.URL, "--model", "m", "--prompts", prompts, "--stream=false", "--out", filepath.Join(dir, "r.json"), flag, missing)
		var ce *cli.Error
		if !errors.As(err, &ce) || ce.Code != cli.ExitUsage || !strings.HasPrefix(err.Error(), flag+" "+missing) || !strings.HasPrefix(ce.Hint, flag+" must") {
			t.Errorf("%s: err %v (%#v), want a usage error naming the flag", flag, err, ce)
		}
	}
	if n := served.Load(); n != 0 {
		t.Errorf("the server was sent %d requests before the run was refused", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run wrote --out: %v", err)
	}
}
