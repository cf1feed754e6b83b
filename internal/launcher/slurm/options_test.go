package slurm

import "github.com/abbench/abbench/internal/scenarios"

func testOptions() scenarios.SlurmOptions {
	return scenarios.SlurmOptions{Partition: "gpu", Nodes: 2, ExtraSbatch: []string{"--exclusive"}, Container: "nvcr.io/x"}
}
