package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is what every disaggsim process reads from its environment.
type config struct {
	terminal    int // 1 asynchronous terminal agreement, 0 blocking
	peerReady   int // 1 followers send READY straight to rank 0, 0 along the pipeline
	linkDelay   time.Duration
	jitter      time.Duration
	seed        uint64
	capacity    int
	genRate     float64 // output tokens per second per request
	kvTimeout   time.Duration
	voteTimeout time.Duration
	faults      faults
}

// faults are the failures DISAGGSIM_FAULTS injects, each seen on a real cluster.
type faults struct {
	// spec is DISAGGSIM_FAULTS as parsed (its items joined by one space):
	// the frontend's mode line reports it, so a mode rule can prove that a
	// fault given through the arm reached the frontend.
	spec               string
	ignoreArmEnv       bool
	dropTerminalVotes  int
	kvTimeout          int
	crashRank          int // -1 when unset
	hangRank           int // -1 when unset
	noValidity         bool
	reorderActivations bool
	alterPrompt        int // -1 when unset
	staleLog           bool
	failEvery          int  // the OpenAI API fails every failEvery-th request it serves (0: never)
	shortAnswers       bool // the OpenAI API answers every request with half its output tokens, max_tokens and ignore_eos or not
	warmCache          int  // the OpenAI API's prefix cache counts this many hits before its first request (a cache kept from an earlier run)
}

func loadConfig() (config, error) {
	c := config{
		linkDelay: 2 * time.Millisecond, capacity: 8, genRate: 20000,
		kvTimeout: time.Second, voteTimeout: 2 * time.Second, seed: 1,
		faults: faults{crashRank: -1, hangRank: -1, alterPrompt: -1},
	}
	var err error
	if c.terminal, err = flag01("DISAGGSIM_TERMINAL"); err != nil {
		return c, err
	}
	if c.peerReady, err = flag01("DISAGGSIM_PEER_READY"); err != nil {
		return c, err
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"DISAGGSIM_LINK_DELAY", &c.linkDelay}, {"DISAGGSIM_JITTER", &c.jitter}, {"DISAGGSIM_KV_TIMEOUT", &c.kvTimeout}, {"DISAGGSIM_VOTE_TIMEOUT", &c.voteTimeout}} {
		if v, ok := os.LookupEnv(d.name); ok {
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst < 0 {
				return c, fmt.Errorf("%s=%q: want a duration such as 2ms", d.name, v)
			}
		}
	}
	if v, ok := os.LookupEnv("DISAGGSIM_SEED"); ok {
		if c.seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return c, fmt.Errorf("DISAGGSIM_SEED=%q: want a non-negative integer", v)
		}
	}
	if v, ok := os.LookupEnv("DISAGGSIM_CAPACITY"); ok {
		if c.capacity, err = strconv.Atoi(v); err != nil || c.capacity < 1 {
			return c, fmt.Errorf("DISAGGSIM_CAPACITY=%q: want an integer of at least 1", v)
		}
	}
	if v, ok := os.LookupEnv("DISAGGSIM_GEN_RATE"); ok {
		if c.genRate, err = strconv.ParseFloat(v, 64); err != nil || c.genRate <= 0 {
			return c, fmt.Errorf("DISAGGSIM_GEN_RATE=%q: want tokens per second above 0", v)
		}
	}
	if builtSlowdown != "" { // a build made slower on purpose, for A/Bs of builds
		extra, err := time.ParseDuration(builtSlowdown)
		if err != nil {
			return c, fmt.Errorf("this build's slowdown %q (-ldflags -X main.builtSlowdown=): want a duration", builtSlowdown)
		}
		c.linkDelay += extra
	}
	c.faults, err = parseFaults(os.Getenv("DISAGGSIM_FAULTS"))
	return c, err
}

// builtSlowdown is added to every link's delay; set at build time
// (go build -ldflags "-X main.builtSlowdown=1ms") to make a build that is
// measurably slower than another, as a regression would.
var builtSlowdown string

// flag01 reads a mode variable: unset means 0 (the control mode, as in the
// real system, which is why abbench must prove the variable arrived);
// anything but 0 or 1 refuses to start.
func flag01(name string) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return 0, nil
	}
	switch v {
	case "0":
		return 0, nil
	case "1":
		return 1, nil
	}
	return 0, fmt.Errorf("%s=%q: only 0 and 1 are accepted", name, v)
}

func parseFaults(s string) (faults, error) {
	f := faults{crashRank: -1, hangRank: -1, alterPrompt: -1}
	f.spec = strings.Join(strings.Fields(s), " ")
	for _, item := range strings.Fields(s) {
		name, arg, hasArg := strings.Cut(item, "=")
		n := 0
		if hasArg {
			var err error
			if n, err = strconv.Atoi(arg); err != nil || n < 0 {
				return f, fmt.Errorf("DISAGGSIM_FAULTS: %q: want a non-negative integer after =", item)
			}
		}
		needArg := map[string]bool{"drop-terminal-votes": true, "kv-timeout": true, "crash-rank": true, "hang-rank": true, "alter-prompt": true, "fail-every": true, "warm-cache": true}
		if needArg[name] != hasArg {
			return f, fmt.Errorf("DISAGGSIM_FAULTS: %q: %s takes %s", item, name, map[bool]string{true: "=N", false: "no argument"}[needArg[name]])
		}
		switch name {
		case "ignore-arm-env":
			f.ignoreArmEnv = true
		case "drop-terminal-votes":
			f.dropTerminalVotes = n
		case "kv-timeout":
			f.kvTimeout = n
		case "crash-rank":
			f.crashRank = n
		case "hang-rank":
			f.hangRank = n
		case "no-validity":
			f.noValidity = true
		case "reorder-activations":
			f.reorderActivations = true
		case "alter-prompt":
			f.alterPrompt = n
		case "stale-log":
			f.staleLog = true
		case "short-answers":
			f.shortAnswers = true
		case "warm-cache":
			f.warmCache = n
		case "fail-every":
			if n < 1 {
				return f, fmt.Errorf("DISAGGSIM_FAULTS: %q: fail-every takes N of at least 1", item)
			}
			f.failEvery = n
		default:
			return f, fmt.Errorf("DISAGGSIM_FAULTS: unknown fault %q (known: ignore-arm-env drop-terminal-votes=K kv-timeout=K crash-rank=R hang-rank=R no-validity reorder-activations alter-prompt=I stale-log fail-every=N short-answers warm-cache=N)", name)
		}
	}
	return f, nil
}
