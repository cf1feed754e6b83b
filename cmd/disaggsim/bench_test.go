package main

import (
	"testing"
	"time"
)

// BenchmarkTerminalModes runs the quickstart system in both terminal
// agreement modes at the default link delay and reports the output token
// throughput of each and their ratio (async/blocking):
//
//	go test -run XXX -bench TerminalModes -benchtime 5x ./cmd/disaggsim
func BenchmarkTerminalModes(b *testing.B) {
	var async, blocking float64
	for b.Loop() {
		for _, mode := range []string{"1", "0"} {
			s := runSystem(b, time.Minute, "DISAGGSIM_TERMINAL="+mode, "DISAGGSIM_PEER_READY=1")
			if s.clientErr != nil {
				b.Fatalf("client: %v", s.clientErr)
			}
			tput, _ := s.record["output_throughput"].(float64)
			if mode == "1" {
				async += tput
			} else {
				blocking += tput
			}
		}
	}
	b.ReportMetric(async/float64(b.N), "async-tok/s")
	b.ReportMetric(blocking/float64(b.N), "blocking-tok/s")
	b.ReportMetric(async/blocking, "async/blocking")
}
