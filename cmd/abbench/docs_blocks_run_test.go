package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/container/containertest"

	"github.com/abbench/abbench/internal/launcher/slurm"
)

// How TestDocsBlocks runs a block: the environment, the working directory,
// the script and what its end is checked against.

// docNeed says whether what a block needs is here, and whether its absence
// fails the test under CI (CI set), where .ci/run provides it.
type docNeed struct {
	check        func() (bool, string)
	requiredInCI bool
}

var docNeeds = map[string]*docNeed{
	"slurm": {check: slurm.ClusterUp, requiredInCI: true},
	"redis": {check: func() (bool, string) {
		ok, err := realRedis()
		if err != nil {
			return false, err.Error()
		}
		return ok, "redis-server, redis-cli or redis-benchmark is missing (apt-get install redis-server redis-tools)"
	}, requiredInCI: true},
	"root": {check: func() (bool, string) { return os.Geteuid() == 0, "not root" }, requiredInCI: true},
	"docker": {check: func() (bool, string) {
		err := containertest.DockerAnswers()
		return err == nil, fmt.Sprintf("no docker daemon answers (sudo scripts/docker-daemon.sh up): %v", err)
	}, requiredInCI: true},
	// The NCCL scenarios: two GPUs and PyTorch; CI has neither.
	"gpu": {check: func() (bool, string) {
		out, err := exec.Command("nvidia-smi", "-L").Output()
		if err != nil || strings.Count(string(out), "GPU ") < 2 {
			return false, "fewer than two GPUs (nvidia-smi -L)"
		}
		if err := exec.Command("python3", "-c", "import torch").Run(); err != nil {
			return false, "no PyTorch (python3 -c 'import torch')"
		}
		return true, ""
	}},
	"cosign": {check: func() (bool, string) {
		_, err := exec.LookPath("cosign")
		return err == nil, "cosign is not on PATH: .ci/run does not build it, a cold build costs more than CI's time allows (docs/bundles.md); go install github.com/sigstore/cosign/v2/cmd/cosign@v2.6.5 runs these blocks"
	}},
}

func docNeedNames() []string {
	var names []string
	for n := range docNeeds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// docNeedsMet says whether a block runs here; missing is why not. A need
// that CI provides is an error under CI.
func docNeedsMet(b docBlock) (missing string, err error) {
	for _, n := range b.Needs {
		if ok, why := docNeeds[n].check(); !ok {
			if docNeeds[n].requiredInCI && os.Getenv("CI") != "" {
				return "", fmt.Errorf("%s:%d needs %s, missing in CI (%s): .ci/run provides it", b.File, b.Line, n, why)
			}
			return fmt.Sprintf("needs %s: %s", n, why), nil
		}
	}
	return "", nil
}

// docsTestEnv is set in every block's environment: a block that runs the
// test suite (bash .ci/run) must not run the documentation again inside it.
const docsTestEnv = "ABBENCH_DOCS_TEST"

// docBlockDeadline bounds one block (the longest, the README's Redis A/B,
// takes about 15 s); a block past it is stopped and fails.
const docBlockDeadline = 5 * time.Minute

// docRunner runs the blocks of one file, in order, in one working
// directory and one shell.
type docRunner struct {
	work     string // the working directory: a copy of the repository
	ctl      string // outside it: the scripts and their status files
	shell    *docShell
	deadline time.Duration // for each block
	n        int           // blocks run so far
}

// newDocRunner copies the repository (its sources, scenarios/ and
// testdata/, without bin/ and out/) to a fresh directory, puts the built
// binaries of binDir in its bin/ and both on PATH first, gives the blocks a
// HOME of their own, and starts their shell. Close stops it.
func newDocRunner(repo, binDir, work, ctl string) (*docRunner, error) {
	if err := copyRepo(repo, work); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		return nil, err
	}
	for _, name := range []string{"abbench", "abbench-rank", "disaggsim"} {
		if err := linkOrCopy(filepath.Join(binDir, name), filepath.Join(work, "bin", name)); err != nil {
			return nil, err
		}
	}
	home := filepath.Join(ctl, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	env, err := docEnv(home, filepath.Join(work, "bin")+string(filepath.ListSeparator)+binDir)
	if err != nil {
		return nil, err
	}
	shell, err := startDocShell(work, env)
	if err != nil {
		return nil, err
	}
	return &docRunner{work: work, ctl: ctl, shell: shell, deadline: docBlockDeadline}, nil
}

// Close ends the blocks' shell and whatever its blocks left running.
func (r *docRunner) Close() { r.shell.close() }

// docEnv is this process's environment for the blocks: HOME their own
// (with Go's caches where they were, so go build stays warm), PATH
// starting with dirs, and none of a developer's ABBENCH_ settings or agent.
func docEnv(home, dirs string) ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	goenv := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(goenv) != 3 {
		return nil, fmt.Errorf("go env printed %q", out)
	}
	env := []string{"HOME=" + home, "GOCACHE=" + goenv[0], "GOMODCACHE=" + goenv[1], "GOPATH=" + goenv[2],
		"PATH=" + dirs + string(filepath.ListSeparator) + os.Getenv("PATH"), docsTestEnv + "=1"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "ABBENCH_"):
		case slices.Contains([]string{"HOME", "PATH", "GOCACHE", "GOMODCACHE", "GOPATH", "SSH_AUTH_SOCK", "PWD", "OLDPWD"}, name):
		default:
			env = append(env, kv)
		}
	}
	return env, nil
}

// run runs one block: each command followed by a line that records its
// status and ends the block at the first status it did not promise. The
// error names the file, line and command, with the output's end.
func (r *docRunner) run(b docBlock) error {
	r.n++
	status := filepath.Join(r.ctl, fmt.Sprintf("block-%d.status", r.n))
	var script strings.Builder
	for i, c := range b.Commands {
		if err := exec.Command("bash", "-n", "-c", c.Text).Run(); err != nil {
			return fmt.Errorf("%s:%d: %s: not a whole command (bash -n: %v): the docs test runs one command a line", b.File, c.Line, c, err)
		}
		var want []string
		for _, e := range c.Exit {
			want = append(want, strconv.Itoa(e))
		}
		fmt.Fprintf(&script, "%s\n__docs_rc=$?; printf '%%d %%d\\n' %d \"$__docs_rc\" >> '%s'; case $__docs_rc in %s) ;; *) return 0 ;; esac\n",
			c.Text, i, status, strings.Join(want, "|"))
	}
	path := filepath.Join(r.ctl, fmt.Sprintf("block-%d.sh", r.n))
	if err := os.WriteFile(path, []byte(script.String()), 0o644); err != nil {
		return err
	}
	output, stdout, runErr := r.shell.source(path, r.deadline)
	got := map[int]int{}
	if data, err := os.ReadFile(status); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var i, rc int
			if _, err := fmt.Sscanf(l, "%d %d", &i, &rc); err == nil {
				got[i] = rc
			}
		}
	}
	for i, c := range b.Commands {
		rc, ok := got[i]
		switch {
		case !ok:
			return fmt.Errorf("%s:%d: %s: never finished (%v)\n%s", b.File, c.Line, c, runErr, tail(output, 30))
		case !slices.Contains(c.Exit, rc):
			return fmt.Errorf("%s:%d: %s: exit %d, want %s\n%s", b.File, c.Line, c, rc, exitWords(c.Exit), tail(output, 30))
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s:%d: %v\n%s", b.File, b.Line, runErr, tail(output, 30))
	}
	for _, re := range b.Stdout {
		if !re.MatchString(stdout) {
			return fmt.Errorf("%s:%d: the block's standard output does not match %q\n%s", b.File, b.Line, re, tail(output, 30))
		}
	}
	return nil
}

func exitWords(codes []int) string {
	var s []string
	for _, c := range codes {
		s = append(s, strconv.Itoa(c))
	}
	if len(codes) == 1 && codes[0] == 0 {
		return "0 (a line that must exit otherwise says so: # exit N)"
	}
	return strings.Join(s, " or ")
}

// tail is the last n lines of s, indented.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return "    " + strings.Join(lines, "\n    ")
}

// copyRepo copies the repository's files to dst, leaving out VCS metadata
// and build outputs (bin/, out/, bench/out/), which the docs build again.
func copyRepo(repo, dst string) error {
	skip := map[string]bool{".git": true, "bin": true, "out": true, ".dev": true, filepath.Join("bench", "out"): true}
	return filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() && skip[rel] {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil
	})
}

func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	return copyFile(src, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
