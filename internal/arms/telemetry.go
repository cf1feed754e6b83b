package arms

import (
	"os/exec"
	"path/filepath"
	"time"

	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// sampleGPUs starts sampling the GPUs of the controller's node for the
// measured phase (telemetry.gpu: auto when nvidia-smi is on PATH, on),
// nil when they are not sampled. The ranks of a Slurm or Kubernetes run
// on other nodes are not sampled: the controller's node is.
func (c *controller) sampleGPUs() *gputelemetry.Sampler {
	t := c.s.Telemetry
	if t.GPUMode() == scenarios.TelemetryOff {
		return nil
	}
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil // under on, the evidence censors the run without samples
	}
	// It stops at the client's end; at the latest a grace after the
	// client's deadline, should the controller never stop it.
	grace := time.Duration(c.s.Deadlines.KillGrace)
	return gputelemetry.Start(gputelemetry.Options{Path: path, Dir: c.dir, Interval: t.SampleInterval(),
		Deadline: time.Duration(c.s.Deadlines.Client) + grace + time.Minute, Grace: grace})
}

// stopSampling ends the sampling at the measured phase's end and writes
// its record beside the samples.
func (c *controller) stopSampling(s *gputelemetry.Sampler) {
	if s == nil {
		return
	}
	rec := s.Stop()
	if err := rundir.WriteJSON(filepath.Join(c.dir, gputelemetry.RecordFile), rec); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the GPU telemetry's record %s: %v", gputelemetry.RecordFile, err))
	}
}
