// Package kubernetes is the rank driver that starts each role as an
// Indexed Job of pods beside the controller's own pod (--ranks
// kubernetes): each pod copies what it needs of the controller's (its
// image, its hostPath volumes, its node affinity and network), its rank
// wrapper finding its launch file by JOB_COMPLETION_INDEX, and one watch
// of the run's pods reports how each rank ended, naming its pod and node.
package kubernetes

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Name is the driver's name, as --ranks takes it.
const Name = "kubernetes"

// Driver is the rank driver of rank pods (--ranks kubernetes): the API
// client of the controller's pod's service account, its namespace, what
// rank pods copy of its own pod, and the ranks the watch follows.
type Driver struct {
	s          *scenarios.Scenario
	dir, coord string   // the run's directory and its coordination directory
	wrapper    []string // the rank wrapper each pod runs
	api        *kubeapi.Client
	namespace  string
	token      string // the run's: every rank pod carries it as a label
	// marker is the launcher's run marker (rundir.EnvKubernetesMarker),
	// and shared that the namespace is a tenant's, not the run's own: its
	// rank Jobs are then named after the run as well as the role.
	marker string
	shared bool
	own    *ownPod
	jobs   []string // the Jobs made, in order
	// startWithin bounds how long a rank's pod may take to run.
	startWithin time.Duration
	mu          sync.Mutex
	ranks       map[rankKey]*podRank
	order       []*podRank // the ranks, in the order they started
	watching    bool
	stopWatch   context.CancelFunc
	watchDone   chan struct{}
}

type rankKey struct {
	role string
	rank int
}

// Run is what the driver needs of the run it starts ranks for.
type Run struct {
	Scenario *scenarios.Scenario
	// Token is the run's: every rank pod carries it as a label.
	Token string
	// Dir and Coord are the run's directory and its coordination
	// directory, on a hostPath volume rank pods mount too.
	Dir, Coord string
	// Wrapper is the rank wrapper each pod runs.
	Wrapper []string
	// StartWithin bounds how long a rank's pod may take to run.
	StartWithin time.Duration
	// Account is the directory of the service account's token and the
	// cluster's CA the driver talks to the API server with (default
	// kubeapi.ServiceAccountDir, the pod's own).
	Account string
}

// New is the driver of run: the API client of this pod's service account
// (server, or the Service address the kubelet gives every pod), and what
// rank pods copy of this pod, read from the API server.
func New(server string, run Run) (*Driver, error) {
	ns, pod := os.Getenv(podEnvNamespace), os.Getenv(podEnvPod)
	if ns == "" || pod == "" {
		return nil, fmt.Errorf("ranks started as pods need the controller's own pod: %s and %s are not set (run it with the kubernetes launcher)", podEnvNamespace, podEnvPod)
	}
	account := run.Account
	if account == "" {
		account = kubeapi.ServiceAccountDir
	}
	api, err := kubeapi.InCluster(server, account)
	if err != nil {
		return nil, err
	}
	marker := os.Getenv(rundir.EnvKubernetesMarker)
	k := &Driver{s: run.Scenario, dir: run.Dir, coord: run.Coord, wrapper: run.Wrapper, api: api, namespace: ns, token: run.Token,
		marker: marker, shared: marker != "" && ns != rundir.KubernetesNamespacePrefix+marker,
		own: &ownPod{}, startWithin: run.StartWithin, ranks: map[rankKey]*podRank{}}
	if err := api.Get(context.Background(), k.podsPath()+"/"+url.PathEscape(pod), k.own); err != nil {
		return nil, fmt.Errorf("reading the controller's own pod %s/%s: %w", ns, pod, err)
	}
	return k, nil
}

// jobName is role's Job's name: the role's, prefixed in a shared
// namespace with the run's marker, so runs there never meet.
func (k *Driver) jobName(role string) string {
	if !k.shared {
		return jobName(role)
	}
	name := rundir.KubernetesNamespacePrefix + k.marker + "-" + jobName(role)
	if len(name) > 47 { // the pods' names add "-INDEX-xxxxx" within 63
		name = name[:47]
	}
	return strings.TrimRight(name, "-")
}

func (k *Driver) podsPath() string {
	return "/api/v1/namespaces/" + url.PathEscape(k.namespace) + "/pods"
}
func (k *Driver) jobsPath() string {
	return "/apis/batch/v1/namespaces/" + url.PathEscape(k.namespace) + "/jobs"
}

func (k *Driver) Name() string { return Name }

// Remote is true: the ranks are pods, on any node of the cluster.
func (k *Driver) Remote() bool { return true }

// Start writes each rank's launch file and creates the role's Job; the
// rank wrapper of each pod finds its launch file by JOB_COMPLETION_INDEX.
func (k *Driver) Start(r *scenarios.Role, rs []*ranks.Rank) error {
	if err := k.startJob(r, rs); err != nil {
		return fmt.Errorf("as a Job of pods: %w", err)
	}
	return nil
}

func (k *Driver) startJob(r *scenarios.Role, rs []*ranks.Rank) error {
	for _, rk := range rs {
		if err := ranks.LaunchElsewhere(k.coord, rk); err != nil {
			for _, rk := range rs {
				rk.End(ranks.Exit{Code: -1, Reason: "was never started"}) // no pod to wait for at teardown
			}
			return err
		}
	}
	d := k.s.Deadlines
	job, err := rankJob(k.own, rankJobSpec{
		name: k.jobName(r.Name), role: r.Name, token: k.token, marker: k.marker, ranks: r.Ranks, dir: k.dir, kube: r.Kubernetes,
		wrapper: k.wrapper, launchDir: rundir.LaunchDirOf(k.coord),
		// No rank outlives the phases of the run it belongs to.
		deadline: time.Duration(d.Ready+d.Client+d.Drain+d.Teardown+d.KillGrace) + k.s.HooksTime(scenarios.HookTeardown),
		grace:    time.Duration(d.KillGrace),
	})
	if err != nil {
		for _, rk := range rs {
			rk.End(ranks.Exit{Code: -1, Reason: "was never started"})
		}
		return err
	}
	image := ""
	if r.Kubernetes != nil {
		image = r.Kubernetes.Image
	}
	return k.start(job, r.Name, image, rs)
}

// start creates the Job and follows its ranks (of the role's own image,
// "" for the controller's), the watch started with the first Job.
func (k *Driver) start(job object, role, image string, rs []*ranks.Rank) error {
	now := time.Now()
	var prs []*podRank
	k.mu.Lock()
	for _, rk := range rs {
		pr := &podRank{r: rk, job: k.jobName(role), since: now, image: image}
		k.ranks[rankKey{labelSafe(role), rk.Index}] = pr
		k.order = append(k.order, pr)
		prs = append(prs, pr)
	}
	if !k.watching {
		ctx, cancel := context.WithCancel(context.Background())
		k.watching, k.stopWatch, k.watchDone = true, cancel, make(chan struct{})
		go func() {
			defer close(k.watchDone)
			k.watch(ctx)
		}()
	}
	k.mu.Unlock()
	if err := k.api.Create(context.Background(), k.jobsPath(), job, nil); err != nil {
		for _, pr := range prs {
			k.end(pr, -1, "was never made", err.Error()) // no pod to wait for at teardown
		}
		return err
	}
	k.mu.Lock()
	k.jobs = append(k.jobs, k.jobName(role))
	k.mu.Unlock()
	return nil
}

// Stop is teardown for rank pods: every role's Job deleted with
// foreground propagation (the kubelet sends each pod SIGTERM, waits its
// grace, then kills it), then a bounded wait until every rank has ended
// and no rank pod is left. A rank that had not ended when the grace was
// over was killed. Once the watch has ended, every rank pod's image is
// held to the controller's (checkPodImages).
func (k *Driver) Stop(grace, limit time.Duration) []reason.Reason {
	deadline := time.Now().Add(limit)
	k.mu.Lock()
	jobs := slices.Clone(k.jobs)
	live := slices.Clone(k.order)
	k.mu.Unlock()
	for _, j := range jobs {
		// A Job the API server did not delete is deleted with the
		// namespace, the launcher's teardown: the ranks' wait below says so.
		_ = k.api.Delete(context.Background(), k.jobsPath()+"/"+url.PathEscape(j), "Foreground")
	}
	// The kubelet's grace, and a margin for the API server to hear of each end.
	graceEnd := time.Now().Add(min(grace+5*time.Second, limit))
	for _, pr := range live {
		select {
		case <-pr.r.Done():
		case <-time.After(time.Until(graceEnd)):
		}
	}
	for _, pr := range live {
		select {
		case <-pr.r.Done():
		case <-time.After(max(time.Until(deadline), time.Second)):
		}
		if !pr.r.Ended() || pr.r.Exit().Signal == syscall.SIGKILL {
			pr.r.Kill()
		}
	}
	if !k.watching {
		return nil
	}
	var reasons []reason.Reason
	if left := k.waitNoPods(deadline.Add(grace)); left != "" {
		reasons = append(reasons, reason.New(reason.UncleanShutdown, "%s %s after their Jobs were deleted: the run's namespace going removes them (kubectl delete namespace %s)", left, limit+grace, k.namespace))
	}
	k.stopWatch()
	<-k.watchDone
	return append(reasons, k.checkPodImages()...)
}

// waitNoPods waits, until deadline, for no rank pod of the run to be
// left, and says what is: "" once none is.
func (k *Driver) waitNoPods(deadline time.Time) string {
	for {
		l, err := k.api.List(context.Background(), k.podsPath(), k.selector())
		if err == nil && len(l.Items) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Sprintf("the rank pods could not be listed (%v)", err)
			}
			var names []string
			for _, p := range l.Items {
				names = append(names, p.Metadata.Name)
			}
			return "rank pods " + strings.Join(names, ", ") + " are left"
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// selector selects every rank pod of the run.
func (k *Driver) selector() string { return labelToken + "=" + labelSafe(k.token) }
