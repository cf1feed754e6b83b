package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// slurmHostsUp says whether the multi-host dev cluster answers
// (scripts/slurm-dev-cluster.sh up --hosts N, as root). It is up only for
// .ci/run's step of its own, which sets ABBENCH_SLURM_HOSTS: there its
// absence fails the scripts that need it; anywhere else they skip.
func slurmHostsUp(repo string) (bool, error) {
	out, err := exec.Command(filepath.Join(repo, "scripts", "slurm-dev-cluster.sh"), "status", "--hosts").CombinedOutput()
	if err == nil {
		return true, nil
	}
	if os.Getenv("ABBENCH_SLURM_HOSTS") != "" {
		return false, fmt.Errorf("ABBENCH_SLURM_HOSTS is set, and no multi-host Slurm cluster answers (%v: %s): scripts/slurm-dev-cluster.sh up --hosts 3", err, strings.TrimSpace(string(out)))
	}
	return false, nil
}
