package main

import (
	"fmt"
	"time"
)

// runServe is the simulator as one process: the OpenAI API with no CTX
// or GEN ranks behind it, for a server abbench does not start but attaches
// to (a Deployment a platform team already runs). What the environment
// set it to is on its /metrics (disaggsim_config_info), as a serving
// engine reports its own configuration, so an attached probe can read the
// mode from the server's answer. Asynchronous terminal agreement
// (DISAGGSIM_TERMINAL=1) answers sooner, as the full system does.
func runServe(listen string, cfg config, opts apiOptions, log *logger) error {
	if cfg.faults.ignoreArmEnv { // the fault: the server runs its built-in default whatever it was given
		cfg.terminal = 0
	}
	opts.listen = listen
	web, err := startAPI(nil, nil, cfg, opts)
	if err != nil {
		return err
	}
	defer web.stop()
	log.printf("mode rank=0 role=serve terminal=%d peer_ready=%d", cfg.terminal, cfg.peerReady)
	log.printf("ready http=%s model=%s", web.addr, opts.model)
	waitTerm()
	log.printf("shutdown_summary role=serve http_received=%d http_served=%d http_failed=%d", web.received.Load(), web.served.Load(), web.failed.Load())
	return nil
}

// simulate answers a request of the one-process server: the first token
// after the prefill (a link delay per pipeline step, fewer steps when
// terminal agreement is asynchronous), the last once its tokens were
// generated at the generation rate.
func (a *api) simulate(s served, p *pending) {
	steps := 3
	if a.cfg.terminal == 1 {
		steps = 1
	}
	time.Sleep(time.Duration(steps) * a.cfg.linkDelay)
	p.first <- msg{Type: "first", ID: s.id, OK: true}
	time.Sleep(time.Duration(float64(s.output) / a.cfg.genRate * float64(time.Second)))
	p.done <- msg{Type: "done", ID: s.id, OK: true, Output: s.output}
}

// configInfo is the one-process server's configuration as /metrics
// says it, an info metric as engines export theirs.
func (a *api) configInfo() string {
	return fmt.Sprintf("# HELP disaggsim_config_info The configuration this server runs with.\n# TYPE disaggsim_config_info gauge\n"+
		"disaggsim_config_info{terminal=\"%d\",peer_ready=\"%d\"} 1\n", a.cfg.terminal, a.cfg.peerReady)
}
