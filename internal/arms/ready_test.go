package arms

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

func TestARankIsReadyOnceRegisteredAndProbed(t *testing.T) {
	c := unitController(t, unitScenario)
	server, helper := c.s.Role("server"), c.s.Role("helper")
	s0 := addRank(t, c, "server", 0, "up\n") // a previous attempt's
	h0 := addRank(t, c, "helper", 0, "")
	if c.rankReady(server, s0) || c.rankReady(helper, h0) {
		t.Fatal("a rank that never registered is ready")
	}
	register(t, c, "server", 0, nil)
	register(t, c, "helper", 0, nil)
	if c.rankReady(server, s0) {
		t.Fatal("ready on a probe line logged before the rank started")
	}
	if !c.rankReady(helper, h0) {
		t.Fatal("a registered rank of a role without a probe is not ready")
	}
	logs(t, s0, "starting\nup and serving\n")
	if !c.rankReady(server, s0) || !c.roleReady(server) {
		t.Fatal("a registered rank that logged its probe line is not ready")
	}
}

func TestAPortProbeWaitsForTheListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	c := unitController(t, strings.Replace(unitScenario, "ready: {log: 'up'}", "ready: {port: '"+port+"'}", 1))
	p := addRank(t, c, "server", 0, "")
	register(t, c, "server", 0, nil)
	if !c.rankReady(c.s.Role("server"), p) {
		t.Fatal("not ready with its port listening")
	}
	ln.Close()
	if c.rankReady(c.s.Role("server"), p) {
		t.Fatal("ready with nothing listening on its port")
	}
}

func TestTheReadyDeadlineNamesWhoIsNotReady(t *testing.T) {
	c := unitController(t, unitScenario)
	addRank(t, c, "server", 0, "")
	addRank(t, c, "server", 1, "")
	// Its driver says why it does not run (a pod the scheduler cannot place).
	addRank(t, c, "helper", 0, "").SetWaiting("pod helper-0-x unscheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient example.com/gpu")
	for rank := range 2 {
		register(t, c, "server", rank, map[string]*string{"MODE": ptr("async")})
	}
	logs(t, c.procs[0], "up\n")
	expired, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-expired.Done()
	if err := c.readyTimeout(expired); !errors.Is(err, errAbort) {
		t.Fatalf("readyTimeout: %v, want the run aborted", err)
	}
	byRank := reasonsByRank(c.status.Reasons)
	if got := fmt.Sprint(byRank[""]); got != fmt.Sprint([]reason.Code{reason.DeadlineExceeded}) {
		t.Fatalf("reasons of the run %v (all %v)", got, byRank)
	}
	last := c.status.Reasons[len(c.status.Reasons)-1]
	if !strings.HasSuffix(last.Detail, ": server-1, helper-0") {
		t.Fatalf("deadline reason %q: want the ranks not ready, and only those", last.Detail)
	}
	// Why they may hang, said first: helper-0 never registered.
	if got := fmt.Sprint(byRank["helper-0"]); got != fmt.Sprint([]reason.Code{reason.RankMissing}) {
		t.Fatalf("helper-0's reasons %v", got)
	}
	// And why, as its driver last saw it.
	for _, r := range c.status.Reasons {
		if r.Code == reason.RankMissing && r.Detail != "helper rank 0 never registered while waiting for readiness: pod helper-0-x unscheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient example.com/gpu" {
			t.Fatalf("helper-0's reason %q: want its driver's why", r.Detail)
		}
	}

	interrupted, stop := context.WithCancel(context.Background())
	stop()
	c.status.Reasons = nil
	if err := c.readyTimeout(interrupted); !errors.Is(err, context.Canceled) || len(c.status.Reasons) > 0 {
		t.Fatalf("an interrupt: %v, reasons %v; want the interrupt and no reason", err, c.status.Reasons)
	}
}
