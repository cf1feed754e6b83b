package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
)

// msg is every message between disaggsim processes: one JSON object a line.
type msg struct {
	Type   string   `json:"type"`
	From   int      `json:"from,omitempty"`
	Round  int      `json:"round,omitempty"`
	IDs    []int    `json:"ids,omitempty"`
	ID     int      `json:"id,omitempty"`
	Prompt []uint32 `json:"prompt,omitempty"`
	Text   string   `json:"text,omitempty"`
	Total  int      `json:"total,omitempty"`
	Output int      `json:"output,omitempty"`
	SentAt int64    `json:"sent_at,omitempty"`
	OK     bool     `json:"ok,omitempty"`
	Err    string   `json:"err,omitempty"`
	Prof   bool     `json:"profiling,omitempty"`
}

type inbound struct {
	m     msg
	reply *peer
}

// node is one process's endpoint: a loopback listener whose address is
// published in the coordination directory, and delayed links to peers.
type node struct {
	coord string
	cfg   config
	ln    net.Listener
	inbox chan inbound
	rng   *rand.Rand
	mu    sync.Mutex
	peers map[string]*peer
}

// envPodIP is a Kubernetes rank pod's own address (the downward API's
// status.podIP, as abbench's rank pods set it): a pod without its
// node's network has a loopback of its own, so a rank listens on its
// pod's address and publishes that for the others.
const envPodIP = "ABBENCH_KUBERNETES_POD_IP"

// listenHost is where every listener of this process listens: the pod's
// address in a rank pod, else the loopback.
func listenHost() string {
	if ip := net.ParseIP(os.Getenv(envPodIP)); ip != nil {
		return ip.String()
	}
	return "127.0.0.1"
}

func newNode(coord, name string, cfg config) (*node, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(listenHost(), "0"))
	if err != nil {
		return nil, err
	}
	n := &node{coord: coord, cfg: cfg, ln: ln, inbox: make(chan inbound, 1024), peers: map[string]*peer{},
		rng: rand.New(rand.NewPCG(cfg.seed, uint64(len(name))))}
	if err := os.MkdirAll(filepath.Join(coord, "addr"), 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(coord, "addr", name), []byte(ln.Addr().String()), 0o644); err != nil {
		return nil, err
	}
	go n.accept()
	return n, nil
}

func (n *node) accept() {
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return
		}
		p := n.newPeer(c)
		go n.read(c, p)
	}
}

func (n *node) read(c net.Conn, p *peer) {
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m msg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		n.inbox <- inbound{m, p}
	}
}

// dial returns the link to the process that published name, waiting for its
// address file up to a bound.
func (n *node) dial(name string) (*peer, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p, ok := n.peers[name]; ok {
		return p, nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		addr, err := os.ReadFile(filepath.Join(n.coord, "addr", name))
		if err == nil {
			c, err := net.Dial("tcp", string(addr))
			if err != nil {
				return nil, fmt.Errorf("connecting to %s at %s: %w", name, addr, err)
			}
			p := n.newPeer(c)
			go n.read(c, p)
			n.peers[name] = p
			return p, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s published no address in %s within 30s", name, n.coord)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// peer is a link that delivers messages in order after the link delay plus
// jitter: the only source of latency in the simulator.
type peer struct {
	c     net.Conn
	queue chan queued
}

type queued struct {
	due time.Time
	m   msg
}

func (n *node) newPeer(c net.Conn) *peer {
	p := &peer{c: c, queue: make(chan queued, 4096)}
	go func() {
		w := bufio.NewWriter(c)
		enc := json.NewEncoder(w)
		var err error
		for q := range p.queue {
			if err != nil {
				continue // a broken link loses what is sent on it, as a network would; the senders never block
			}
			if d := time.Until(q.due); d > 0 {
				err = w.Flush()
				time.Sleep(d)
			}
			if err == nil {
				err = enc.Encode(q.m)
			}
			if err == nil && len(p.queue) == 0 {
				err = w.Flush()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "disaggsim: the link to %s is broken, what is sent on it is lost: %v\n", c.RemoteAddr(), err)
			}
		}
	}()
	return p
}

func (n *node) send(p *peer, m msg) {
	d := n.cfg.linkDelay
	if n.cfg.jitter > 0 {
		n.mu.Lock()
		d += time.Duration(n.rng.Int64N(int64(n.cfg.jitter)))
		n.mu.Unlock()
	}
	p.queue <- queued{time.Now().Add(d), m}
}
