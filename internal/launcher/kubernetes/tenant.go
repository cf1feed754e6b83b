package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/rundir"
)

// Tenant is the namespaced mode: every run in one namespace the user
// has rights in, nothing cluster-scoped made, every pod passing Pod
// Security "restricted" (no host network, no hostPath, non-root, no
// privilege escalation, seccomp RuntimeDefault, every capability
// dropped), the campaign directory on a ReadWriteMany claim mounted at
// the path where the launching host sees that volume.
type Tenant struct {
	// Namespace is where every run goes.
	Namespace string
	// ServiceAccount is the controller's account, given by the user with
	// the controller's rights; empty: one made per run, with its Role
	// and RoleBinding, and deleted with it.
	ServiceAccount string
	// Claim is the ReadWriteMany PersistentVolumeClaim of the campaign
	// directory, mounted in every pod at ClaimPath: where the launching
	// host sees that volume, so every path of a run is the same on both
	// sides.
	Claim, ClaimPath string
	// UID and GID are the pods' user and group: runAsNonRoot needs a uid
	// other than 0.
	UID, GID int64
}

// DefaultTenantUID is the tenant pods' uid when abbench runs as root
// (a pod of Pod Security "restricted" may not): the distroless images'
// "nonroot".
const DefaultTenantUID = 65532

// labelMarker carries the run's marker on every object of the run (and
// the rank Jobs and pods its controller makes): in a shared namespace,
// teardown deletes exactly what carries it.
const labelMarker = "abbench.dev/marker"

// TenantError is a tenant run that cannot be made as configured: no
// claim for the campaign directory, or a directory outside it. Nothing
// of the campaign was made; a usage error (exit 2) whose Fix says what to
// change.
type TenantError struct {
	Problem, Fix string
}

func (e *TenantError) Error() string { return "kubernetes launcher (namespaced): " + e.Problem }

// Hint says what to change.
func (e *TenantError) Hint() string { return e.Fix }

// checkTenant holds the tenant's options and the directories its pods
// share to what a run needs: a claim, a claim path, and every
// directory on it.
func (l *Launcher) checkTenant() error {
	t := l.Tenant
	if t.Claim == "" || t.ClaimPath == "" {
		return &TenantError{Problem: fmt.Sprintf("no ReadWriteMany claim for the campaign directory: the runs go in namespace %s, where no pod may mount a host directory", t.Namespace),
			Fix: "name the claim and where this host sees its volume: launcher: {kubernetes: {claim: NAME, claim_path: /PATH}} (or ABBENCH_KUBERNETES_CLAIM and ABBENCH_KUBERNETES_CLAIM_PATH), and put the campaign directory, the scenario and its prompts under that path"}
	}
	if !filepath.IsAbs(t.ClaimPath) {
		return &TenantError{Problem: fmt.Sprintf("claim path %q is not absolute", t.ClaimPath), Fix: "give the absolute path where this host sees the claim's volume"}
	}
	if t.UID <= 0 {
		return &TenantError{Problem: fmt.Sprintf("uid %d: Pod Security \"restricted\" runs no pod as root", t.UID), Fix: "give launcher.kubernetes.run_as_user a uid above 0"}
	}
	for _, dir := range l.Mounts {
		if !within(filepath.Clean(dir), filepath.Clean(t.ClaimPath)) {
			return &TenantError{Problem: fmt.Sprintf("%s is outside the claim %s's path %s: a pod sees only that volume", dir, t.Claim, t.ClaimPath),
				Fix: "put the campaign directory (--out), the scenario and its prompts under " + t.ClaimPath}
		}
	}
	return nil
}

// restrictedPod makes pod and its container pass Pod Security
// "restricted": the pod's user and group, no root, seccomp
// RuntimeDefault; the container without privilege escalation or any
// capability. Rank pods copy both from the controller's pod.
func (t *Tenant) restrictedPod(pod, container object) {
	pod["securityContext"] = object{
		"runAsNonRoot": true, "runAsUser": t.UID, "runAsGroup": t.GID,
		"seccompProfile": object{"type": "RuntimeDefault"},
	}
	container["securityContext"] = RestrictedContainer()
}

// RestrictedContainer is a container's securityContext under Pod
// Security "restricted".
func RestrictedContainer() object {
	return object{
		"runAsNonRoot": true, "allowPrivilegeEscalation": false,
		"capabilities":   object{"drop": []string{"ALL"}},
		"seccompProfile": object{"type": "RuntimeDefault"},
	}
}

// tenantName is the name of a run's Job (and, when made, its account,
// Role and RoleBinding) in the shared namespace: the name a run's own
// namespace has otherwise, so the launch token still leads to it.
func tenantName(marker string) string { return rundir.KubernetesNamespacePrefix + marker }

// claimVolume is the campaign directory's volume and its mount: the
// claim at its path on the host.
func (t *Tenant) claimVolume() (volume, mount object) {
	return object{"name": "campaign", "persistentVolumeClaim": object{"claimName": t.Claim}},
		object{"name": "campaign", "mountPath": filepath.Clean(t.ClaimPath)}
}

// tenantRights are what a tenant's account needs in its namespace:
// its runs' Jobs, a look at their pods, and, where the controller's
// account is made per run, that account, its Role and RoleBinding (made,
// listed and deleted) with the rights the Role grants.
func (l *Launcher) tenantRights() []right {
	rs := []right{{"create", "jobs.batch", false}, {"get", "jobs.batch", false}, {"list", "jobs.batch", false}, {"delete", "jobs.batch", false},
		{"get", "pods", false}, {"list", "pods", false}}
	if !l.RankPods || l.Tenant.ServiceAccount != "" {
		return rs
	}
	for _, res := range []string{"serviceaccounts", "roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io"} {
		for _, verb := range []string{"create", "list", "delete"} {
			rs = append(rs, right{verb, res, false})
		}
	}
	return appendRuleRights(rs)
}

// chownForPods gives the pods' uid the run directory and the launch
// script where abbench runs as root: on a shared volume (NFS) files are
// the uid that made them, and a pod that runs as another non-root uid
// could neither write the run directory nor read its 0700 script. A
// launching user of another uid runs its pods as itself (the default),
// and needs nothing.
func (l *Launcher) chownForPods(paths ...string) error {
	if l.Tenant == nil || os.Geteuid() != 0 {
		return nil
	}
	for _, p := range paths {
		if err := os.Lchown(p, int(l.Tenant.UID), int(l.Tenant.GID)); err != nil {
			return fmt.Errorf("giving %s to the pods' uid %d: %w", p, l.Tenant.UID, err)
		}
	}
	return nil
}

// tenantTeardown deletes the run's Jobs (its own and the rank Jobs its
// controller made, by the run's marker) with foreground propagation,
// waits until no pod of the run is left, then deletes the account, Role
// and RoleBinding made for it (the controller needs them to tear its
// ranks down), and waits, bounded, until nothing of the run is left: ""
// once gone, or what is left.
func (l *Launcher) tenantTeardown(marker string) string {
	ctx := context.Background()
	ns, sel := l.Tenant.Namespace, labelMarker+"="+marker
	deadline := time.Now().Add(l.grace() + time.Minute)
	_, err := l.kubectl(ctx, nil, "delete", "jobs", "-n", ns, "-l", sel, "--ignore-not-found", "--wait=false", "--cascade=foreground")
	left := l.waitGone(ctx, "jobs,pods", sel, deadline)
	if l.RankPods && l.Tenant.ServiceAccount == "" {
		kinds := "serviceaccounts,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io"
		_, derr := l.kubectl(ctx, nil, "delete", kinds, "-n", ns, "-l", sel, "--ignore-not-found", "--wait=false")
		err = errors.Join(err, derr)
		left = strings.Join(nonEmpty(left, l.waitGone(ctx, kinds, sel, deadline)), ", ")
	}
	if left == "" {
		return ""
	}
	left = fmt.Sprintf("%s of the run still in namespace %s %s after their deletion", left, ns, l.grace()+time.Minute)
	if err != nil {
		left += " (" + err.Error() + ")"
	}
	return left
}

// waitGone waits, until deadline, for no object of kinds that carries
// sel to be left in the tenant's namespace: "" once none is, else their
// names (or why they could not be listed).
func (l *Launcher) waitGone(ctx context.Context, kinds, sel string, deadline time.Time) string {
	for {
		out, err := l.kubectl(ctx, nil, "get", kinds, "-n", l.Tenant.Namespace, "-l", sel, "-o", "name")
		names := strings.Fields(string(out))
		if err == nil && len(names) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			if err != nil {
				return "objects that could not be listed (" + err.Error() + ")"
			}
			return strings.Join(names, ", ")
		}
		time.Sleep(l.poll())
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// jobName is the run's Job's name: "run" in a namespace of its own, the
// run's name in a tenant's.
func (l *Launcher) jobName(marker string) string {
	if l.Tenant != nil {
		return tenantName(marker)
	}
	return jobName
}

// remove deletes, without waiting, whatever of a run Start made: its
// namespace, or in a tenant's, the objects of its marker.
func (l *Launcher) remove(namespace, marker string) {
	ctx := context.Background()
	if l.Tenant == nil {
		_, _ = l.kubectl(ctx, nil, "delete", "namespace", namespace, "--ignore-not-found", "--wait=false")
		return
	}
	_, _ = l.kubectl(ctx, nil, "delete", "jobs,serviceaccounts,roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io",
		"-n", namespace, "-l", labelMarker+"="+marker, "--ignore-not-found", "--wait=false")
}

// runName is the run's name in a tenant's shared namespace (the one its
// launch token names), "" in a namespace of its own.
func (r *run) runName() string {
	if r.l.Tenant == nil {
		return ""
	}
	return tenantName(r.marker)
}
