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
	var kept []map[string]any
	consumerReads(t, "github-action-benchmark's parser", exec.Command("node", "-e", gabParse, zod), export, &kept)
	return kept
}

// consumerReads runs a consumer's parser (cmd) on what abbench wrote and
// decodes the JSON it prints into v; the test fails, naming the consumer,
// when it refuses.
func consumerReads(t *testing.T, consumer string, cmd *exec.Cmd, written []byte, v any) {
	t.Helper()
	cmd.Stdin = bytes.NewReader(written)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s refuses what abbench wrote: %v\n%s\n%s", consumer, err, stderr.Bytes(), written)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatal(err)
	}
}
