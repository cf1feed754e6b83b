// Package kubernetes is the launcher backend that runs each arm run as a
// Kubernetes Job of its own, in a namespace of its own: one pod, never
// restarted, whose container runs the run's launch script from the run
// directory (a volume every node shares: hostPath on a one-machine
// cluster). The launch script, like a Slurm batch script, exports the
// controller's environment after the image's own, so the arm's values win,
// and execs the controller. The API is spoken with kubectl, as the Slurm
// backend speaks sbatch and scontrol; the run is watched by polling, and
// torn down by deleting its namespace with foreground propagation until no
// pod of it is left.
package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// EnvAllocation marks every process of a run's pod, as in the other backends.
const EnvAllocation = "ABBENCH_ALLOCATION"

// The files Start writes into the run directory: the launch script the
// pod runs, the manifest it created, the controller's output (appended by
// every attempt) and the pod's facts (node, image digest).
const (
	ScriptFile   = "kube-launch.sh"
	ManifestFile = "kube-job.json"
	OutputFile   = "kube-controller.out"
	PodFile      = rundir.PodFile
)

// DefaultImage is the image scripts/kube-dev-cluster.sh builds and imports.
const DefaultImage = "abbench.local/abbench:dev"

// Launcher creates each spec as a Job in a namespace of its own.
type Launcher struct {
	// Kubectl is the kubectl to run (default "kubectl" on PATH); it finds
	// the cluster as it always does (KUBECONFIG, ~/.kube/config).
	Kubectl string
	// Image is the pod's image (default DefaultImage), and PullPolicy its
	// imagePullPolicy (default IfNotPresent).
	Image, PullPolicy string
	// Self is abbench's own executable, the first word of the command a
	// campaign starts; in the pod the image's InImage (default
	// /usr/local/bin/abbench) runs in its place: the host's may need
	// libraries the image does not have.
	Self, InImage string
	// Path is the pod's PATH when the spec's environment sets none
	// (default the image's: /usr/local/bin:/bin).
	Path string
	// Mounts are host directories shared into the pod at the same path,
	// besides the run directory (the scenario's, its inputs'): on a
	// cluster of several machines, directories of a filesystem every node
	// mounts there.
	Mounts []string
	// Deadline is the Job's activeDeadlineSeconds (default 6h): the API
	// server ends a run whose abbench no longer watches it.
	Deadline time.Duration
	// Grace is the pod's termination grace, how long a cancelled run's
	// controller has to tear its ranks down (default 60s).
	Grace time.Duration
	// Poll is the interval between looks at the run (default 500ms).
	Poll time.Duration
	// RankPods says the controller starts its ranks as pods of their own
	// (arms.RanksKubernetes): the run's namespace gets the controller a
	// service account allowed only that, its pod mounts the account's
	// token, and it shares its node's network with the rank pods.
	RankPods bool
	// API is the API server's address the controller's pod talks to
	// (https://HOST:PORT), where the Service address the kubelet gives
	// every pod does not route; empty: that one.
	API string
	// Tenant, when set, runs every run in its namespace as a tenant
	// (nothing cluster-scoped, pods of Pod Security "restricted", the
	// campaign directory on a claim). Fallback is the tenant taken where
	// none is set and the account may not create namespaces.
	Tenant, Fallback *Tenant

	mu            sync.Mutex
	rightsChecked bool // the caller's account may do all a run needs
}

var _ launcher.Launcher = (*Launcher)(nil)

// Name implements launcher.Launcher.
func (l *Launcher) Name() string { return "kubernetes" }

func (l *Launcher) image() string        { return or(l.Image, DefaultImage) }
func (l *Launcher) pullPolicy() string   { return or(l.PullPolicy, "IfNotPresent") }
func (l *Launcher) grace() time.Duration { return orDuration(l.Grace, 60*time.Second) }
func (l *Launcher) poll() time.Duration  { return orDuration(l.Poll, 500*time.Millisecond) }
func (l *Launcher) activeDeadline() time.Duration {
	return max(orDuration(l.Deadline, 6*time.Hour), time.Second)
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func orDuration(d, fallback time.Duration) time.Duration {
	if d <= 0 {
		return fallback
	}
	return d
}

// Start implements launcher.Launcher: it writes the launch script and the
// manifest into the run directory and creates the namespace and the Job.
func (l *Launcher) Start(ctx context.Context, spec launcher.Spec) (launcher.Run, error) {
	if len(spec.Command) == 0 {
		return nil, errors.New("kubernetes launcher: empty command")
	}
	if err := launcher.MakeDir(spec); err != nil {
		return nil, fmt.Errorf("kubernetes launcher: run directory: %w", err)
	}
	marker := launcher.NewMarker()
	namespace := rundir.KubernetesNamespacePrefix + marker
	if err := l.checkRights(ctx, namespace); err != nil {
		launcher.RemoveMade(spec)
		return nil, err
	}
	if l.Tenant != nil {
		namespace = l.Tenant.Namespace
	} else {
		l.sweep(ctx)
	}
	written := []string{filepath.Join(spec.Dir, ScriptFile), filepath.Join(spec.Dir, ManifestFile)}
	manifest, err := l.manifest(spec, namespace, marker, written[0], time.Now())
	if err == nil {
		err = os.WriteFile(written[0], []byte(l.Script(spec, marker)), 0o700)
	}
	if err == nil {
		err = os.WriteFile(written[1], manifest, 0o644)
	}
	if err == nil {
		err = l.chownForPods(spec.Dir, written[0])
	}
	if err == nil {
		_, err = l.kubectl(ctx, manifest, "create", "-f", "-")
	}
	if err != nil {
		// Whatever kubectl created of the List goes; what stays is the run
		// directory the error names (or, for another attempt, its earlier files).
		l.remove(namespace, marker)
		for _, f := range written {
			_ = os.Remove(f)
		}
		launcher.RemoveMade(spec)
		return nil, fmt.Errorf("kubernetes launcher: %w", err)
	}
	r := &run{l: l, spec: spec, namespace: namespace, marker: marker, started: time.Now(), Ending: launcher.NewEnding()}
	// For a person in the run directory: plan.json records the allocation.
	_ = os.WriteFile(filepath.Join(spec.Dir, rundir.JobIDFile), []byte(namespace+"/job/"+l.jobName(marker)+"\n"), 0o644)
	go r.watch()
	return r, nil
}

// keep are the variables of abbench's environment the controller gets when
// the spec gives none; PATH and HOME are the image's.
var keep = []string{"USER", "LOGNAME", "LANG", "LC_ALL", "TZ"}

// Script is the launch script of a spec: the controller's environment,
// exported with POSIX shell quoting after the image's own, its output
// appended to OutputFile, and the controller exec'd.
func (l *Launcher) Script(spec launcher.Spec, marker string) string {
	env := spec.Env
	if env == nil {
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); slices.Contains(keep, k) {
				env = append(env, kv)
			}
		}
	}
	var b strings.Builder
	b.WriteString("set -u\n")
	fmt.Fprintf(&b, "export %s=%s\n", EnvAllocation, shellQuote(marker))
	// The launch token names the namespace by it (rundir.KubernetesNamespace).
	fmt.Fprintf(&b, "export %s=%s\n", rundir.EnvKubernetesMarker, shellQuote(marker))
	fmt.Fprintf(&b, "export PATH=%s\n", shellQuote(or(l.Path, "/usr/local/bin:/bin")))
	// The machine facts' image: pinned by digest where the image is.
	fmt.Fprintf(&b, "export ABBENCH_IMAGE=%s\n", shellQuote(l.image()))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
		}
	}
	fmt.Fprintf(&b, "cd %s || exit 1\n", shellQuote(spec.Dir))
	fmt.Fprintf(&b, "exec >>%s 2>&1\n", shellQuote(filepath.Join(spec.Dir, OutputFile)))
	b.WriteString("exec")
	for i, a := range spec.Command {
		if i == 0 && l.Self != "" && a == l.Self {
			a = or(l.InImage, "/usr/local/bin/abbench")
		}
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString("\n")
	return b.String()
}

// shellQuote quotes s for a POSIX shell, whatever it holds.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
