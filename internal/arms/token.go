package arms

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"

	"github.com/abbench/abbench/internal/rundir"
)

// NewToken returns a fresh launch token: time, then random bits, so tokens
// sort by start and never repeat. Under Slurm it includes the job id and
// restart count, so a requeued job gets its own namespace; under
// Kubernetes the marker of the run's namespace (rundir.KubernetesNamespace
// reads it back), so `kubectl get namespaces` names the attempt.
func NewToken() string {
	var b [6]byte
	rand.Read(b[:])
	t := time.Now().UTC().Format("20060102T150405Z")
	if job := os.Getenv("SLURM_JOB_ID"); job != "" {
		restart := os.Getenv("SLURM_RESTART_COUNT")
		if restart == "" {
			restart = "0"
		}
		t += "-job" + job + "-r" + restart
	}
	if kube := rundir.KubernetesTokenPart(os.Getenv(rundir.EnvKubernetesMarker)); kube != "" {
		t += "-" + kube
	}
	return t + "-" + hex.EncodeToString(b[:])
}
