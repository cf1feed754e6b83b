package arms

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"
)

// NewToken returns a fresh launch token: time, then random bits, so tokens
// sort by start and never repeat. Under Slurm it includes the job id and
// restart count, so a requeued job gets its own namespace.
func NewToken() string {
	var b [6]byte
	rand.Read(b[:])
	t := time.Now().UTC().Format("20060102T150405Z")
	if job := os.Getenv("SLURM_JOB_ID"); job != "" {
		restart := os.Getenv("SLURM_RESTART_COUNT")
		if restart == "" {
			restart = "0"
		}
		return t + "-job" + job + "-r" + restart + "-" + hex.EncodeToString(b[:])
	}
	return t + "-" + hex.EncodeToString(b[:])
}
