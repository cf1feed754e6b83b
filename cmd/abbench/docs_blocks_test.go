package main

// Docs run as tests. Every fenced block of README.md and docs/**/*.md whose
// info string is sh, bash, shell or console runs here as written, with
// bash, so a renamed flag or a changed exit status fails CI naming the
// file, line and command. The blocks of one file run in order in one fresh
// directory holding a copy of the repository (scenarios/, testdata/, the
// sources), with abbench, abbench-rank and disaggsim built into its bin/
// and on PATH, as a reader who follows the file from a clone.
//
// What a block's text promises is what is checked:
//
//   - One command a line (a trailing backslash continues it); in console
//     blocks the commands are the lines starting with "$ ".
//   - Every command exits 0, unless its line ends with "# exit N" (or
//     "# exit N or M"), the status it must exit with.
//   - An HTML comment right before the fence (invisible on GitHub) says
//     more, directives separated by ";":
//     <!-- docs-test: needs redis --> runs only where redis is; slurm, redis
//     and root must be there under CI (CI set), gpu and cosign are skipped
//     where missing, saying so;
//     <!-- docs-test: stdout "verdict: regressed" --> the block's standard
//     output matches that regular expression;
//     <!-- docs-test: skip: REASON --> never runs: only for a block no
//     automated run can do.
//   - <!-- docs-test: setup, then a block, then --> on its own line: a block
//     hidden from readers that runs in its place (prefer a visible one).

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/testbin"
)

// TestDocsBlocks runs every shell block of the documentation.
func TestDocsBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documentation's campaigns")
	}
	t.Parallel() // with TestScripts: the files' campaigns and the scripts share the test slots
	if os.Getenv(docsTestEnv) != "" {
		t.Skip("inside a block of the documentation already")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	err = filepath.WalkDir(filepath.Join(repo, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repo, path)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	cmds := []string{filepath.Join(repo, "cmd", "abbench"), filepath.Join(repo, "cmd", "abbench-rank"), filepath.Join(repo, "cmd", "disaggsim")}
	if err := testbin.BuildInto(bin, nil, nil, cmds...); err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(repo, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := parseDocBlocks(file, string(data))
		if err != nil {
			t.Error(err)
			continue
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			r, err := newDocRunner(repo, bin, t.TempDir(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			runDocBlocks(t, r, blocks)
		})
	}
}

// runDocBlocks runs a file's blocks in order and stops at the first that
// fails: the later ones follow from it.
func runDocBlocks(t *testing.T, r *docRunner, blocks []docBlock) {
	t.Helper()
	for _, b := range blocks {
		if b.Skip != "" {
			t.Logf("%s:%d: not run: %s", b.File, b.Line, b.Skip)
			continue
		}
		missing, err := docNeedsMet(b)
		if err != nil {
			t.Fatal(err)
		}
		if missing != "" {
			t.Logf("%s:%d: skipped: %s", b.File, b.Line, missing)
			continue
		}
		start := time.Now()
		if err := r.run(b); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:%d: ok, %d command(s) in %.1fs", b.File, b.Line, len(b.Commands), time.Since(start).Seconds())
	}
}

// TestDocBlocksParse reads each convention from a small document.
func TestDocBlocksParse(t *testing.T) {
	doc := strings.Join([]string{
		"# A doc", // 1
		"```sh",
		"echo one   # a comment, not a status",
		"false      # exit 1: said so",
		"abbench run x.yaml \\",
		"  --out y  # exit 3 or 5",
		"```",
		"<!-- docs-test: needs redis; stdout \"verdict: (re|de)gressed; x\" -->", // 8
		"",
		"```bash",
		"echo '# exit 2' \"#x\" a#b",
		"```",
		"```yaml", // 13
		"a: 1",
		"```",
		"<!-- docs-test: skip: it installs from the network -->", // 16
		"```console",
		"$ curl -fsSL https://example.org/install | sh",
		"installed",
		"```",
		"<!-- docs-test: setup", // 21
		"```shell",
		"ssh-keygen -q -t ed25519 -N '' -f key",
		"```",
		"-->",
	}, "\n")
	blocks, err := parseDocBlocks("d.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 4 {
		t.Fatalf("%d blocks, want 4 (the yaml block does not run): %+v", len(blocks), blocks)
	}
	first := blocks[0]
	if first.Line != 2 || len(first.Commands) != 3 || first.Needs != nil || first.Skip != "" || first.Setup {
		t.Errorf("first block: %+v", first)
	}
	wantExits := [][]int{{0}, {1}, {3, 5}}
	for i, c := range first.Commands {
		if !slices.Equal(c.Exit, wantExits[i]) {
			t.Errorf("command %d (%s): exit %v, want %v", i, c, c.Exit, wantExits[i])
		}
	}
	if c := first.Commands[2]; c.Line != 5 || c.String() != "abbench run x.yaml \\ --out y # exit 3 or 5" {
		t.Errorf("continued command: line %d, %q", c.Line, c)
	}
	second := blocks[1]
	if !slices.Equal(second.Needs, []string{"redis"}) || len(second.Stdout) != 1 || second.Stdout[0].String() != "verdict: (re|de)gressed; x" {
		t.Errorf("second block's markers: %+v", second)
	}
	if !slices.Equal(second.Commands[0].Exit, []int{0}) {
		t.Errorf("a quoted # is no comment: exit %v", second.Commands[0].Exit)
	}
	if third := blocks[2]; third.Skip != "it installs from the network" || len(third.Commands) != 1 ||
		!strings.HasPrefix(third.Commands[0].Text, "curl ") || third.Commands[0].Line != 18 {
		t.Errorf("console block: %+v", third)
	}
	if fourth := blocks[3]; !fourth.Setup || fourth.Line != 22 || len(fourth.Commands) != 1 {
		t.Errorf("setup block: %+v", fourth)
	}

	for _, bad := range []struct{ doc, want string }{
		{"```sh\necho\n", "d.md:1: the fence ``` is never closed"},
		{"<!-- docs-test: needs gpus -->\n```sh\necho\n```", `d.md:1: needs "gpus": known are cosign, docker, gpu, redis, root, slurm`},
		{"<!-- docs-test: expect 3 -->\n```sh\necho\n```", `d.md:1: unknown docs-test directive "expect 3"`},
		{"<!-- docs-test: stdout regressed -->\n```sh\necho\n```", "d.md:1: stdout regressed: want a double-quoted"},
		{"<!-- docs-test: needs redis -->\ntext\n```sh\necho\n```", "d.md:1: a docs-test marker not followed by a shell block"},
		{"<!-- docs-test: needs redis -->\n```yaml\na: 1\n```", `d.md:1: a docs-test marker before a "yaml" block`},
		{"<!-- docs-test: setup -->\n```sh\necho\n```", "d.md:1: a setup marker opens an HTML comment"},
		{"```sh\ncat <<EOF\nx\nEOF\n```", "d.md:2: a here-document"},
	} {
		if _, err := parseDocBlocks("d.md", bad.doc); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.doc, err, bad.want)
		}
	}
}

// TestDocBlockRunner: a block passes only when every command ends as its
// line promises and its output shows what its marker says; a failure names
// the file, line and command, and later commands do not run.
func TestDocBlockRunner(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"abbench", "abbench-rank", "disaggsim"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho \"$0 $*\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "scenarios", "s.yaml"), []byte("name: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, fails string }{
		{"```sh\nsleep 60\n```", "d.md:2: sleep 60: never finished (the block did not end within 1s: stopped)"},
		{"```sh\ncat scenarios/s.yaml\nbin/abbench run && abbench verify\nsh -c 'exit 3'   # exit 3: censored\nsh -c 'exit 5' # exit 0 or 5\n```", ""},
		{"```sh\ncd scenarios\ntest -f s.yaml\n```", ""},
		// A later block sees what an earlier one set, as in one terminal.
		{"```sh\nx=5\ncd scenarios\n```\n```sh\ntest \"$x\" = 5\ntest -f s.yaml\n```", ""},
		{"```sh\nx=5\n```\n```sh\ntest \"$x\" = 6\n```", "d.md:5: test \"$x\" = 6: exit 1, want 0"},
		{"```sh\necho one\nsh -c 'exit 2'\ntouch never-made\n```", "d.md:3: sh -c 'exit 2': exit 2, want 0"},
		{"```sh\nsh -c 'exit 4'   # exit 3\n```", "d.md:2: sh -c 'exit 4' # exit 3: exit 4, want 3"},
		{"```sh\ntrue   # exit 1\n```", "d.md:2: true # exit 1: exit 0, want 1"},
		{"```sh\nexit 0\necho after\n```", "d.md:2: exit 0: never finished"},
		{"```sh\nfor i in 1 2; do\necho $i; done\n```", "d.md:2: for i in 1 2; do: not a whole command"},
		{"<!-- docs-test: stdout \"verdict: regressed\" -->\n```sh\necho verdict: improved\n```", `d.md:2: the block's standard output does not match "verdict: regressed"`},
		{"<!-- docs-test: stdout \"verdict: regressed\" -->\n```sh\necho verdict: regressed >&2\n```", `d.md:2: the block's standard output does not match "verdict: regressed"`},
		{"<!-- docs-test: stdout \"run --out x\" -->\n```sh\nabbench run --out x\n```", ""},
	} {
		blocks, err := parseDocBlocks("d.md", c.doc)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newDocRunner(repo, bin, t.TempDir(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		r.deadline = time.Second
		start := time.Now()
		for _, b := range blocks {
			if err = r.run(b); err != nil {
				break
			}
		}
		r.Close()
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%q: took %s: a block's deadline is not kept", c.doc, took)
		}
		switch {
		case c.fails == "" && err != nil:
			t.Errorf("%q: %v", c.doc, err)
		case c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails)):
			t.Errorf("%q: error %v, want %q", c.doc, err, c.fails)
		}
		if _, err := os.Stat(filepath.Join(r.work, "never-made")); err == nil {
			t.Errorf("%q: a command after the failing one ran", c.doc)
		}
	}
}
