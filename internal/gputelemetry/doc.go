// Package gputelemetry samples the GPUs of a node while a run measures,
// and reads the samples back: SM and memory clocks, power draw and limit,
// temperature, utilisation and the active clock event (throttle) reasons,
// one line per GPU at a fixed interval, from nvidia-smi's own loop
// (--query-gpu ... -lms). The run keeps nvidia-smi's lines as it printed
// them, bounded, so the evidence derived from them is derived again from
// the same bytes when a bundle is verified.
//
// The sampler is a child process in a group of its own that dies with
// abbench (SIGKILL on its parent's death), stopped by its caller at the
// end of the measured phase and, at the latest, at its deadline.
package gputelemetry
