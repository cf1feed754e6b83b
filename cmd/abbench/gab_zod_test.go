package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvNodeModules names a node_modules folder holding zod, the library
// github-action-benchmark's parser of customBiggerIsBetter and
// customSmallerIsBetter files is written in (.ci/run installs it from
// the npm registry at the version the action pins).
const EnvNodeModules = "ABBENCH_NODE_MODULES"

// gabParse is that parser: the action's src/extract.ts reads such a file
// as BenchmarkResults.parse(JSON.parse(output)), with this schema (the
// action is not published as a package; its schema is restated here
// as the contract, and zod itself does the reading). It prints what the
// action keeps.
const gabParse = `
const { z } = require(process.argv[1]);
const BenchmarkResult = z.object({
    name: z.coerce.string(),
    value: z.coerce.number(),
    range: z.coerce.string().optional(),
    unit: z.coerce.string(),
    extra: z.coerce.string().optional(),
});
const BenchmarkResults = z.array(BenchmarkResult);
const out = BenchmarkResults.parse(JSON.parse(require("fs").readFileSync(0, "utf8")));
process.stdout.write(JSON.stringify(out));
`

// parseWithGitHubActionBenchmark reads a github-benchmark export as the
// action does; skipped where node or zod is missing, except in CI.
func parseWithGitHubActionBenchmark(t *testing.T, export []byte) []map[string]any {
	t.Helper()
	zod := filepath.Join(os.Getenv(EnvNodeModules), "zod")
	_, statErr := os.Stat(zod)
	_, nodeErr := exec.LookPath("node")
	if os.Getenv(EnvNodeModules) == "" || statErr != nil || nodeErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and zod under $%s are missing; .ci/run installs them", EnvNodeModules)
		}
		t.Skipf("node, or zod under $%s, not installed", EnvNodeModules)
	}
	cmd := exec.Command("node", "-e", gabParse, zod)
	cmd.Stdin = bytes.NewReader(export)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("github-action-benchmark's parser refuses the export: %v\n%s\n%s", err, stderr.Bytes(), export)
	}
	var kept []map[string]any
	if err := json.Unmarshal(out, &kept); err != nil {
		t.Fatal(err)
	}
	return kept
}
