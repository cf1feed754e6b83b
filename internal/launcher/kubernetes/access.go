package kubernetes

import (
	"context"
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// right is one thing the launcher asks the API server to do, as `kubectl
// auth can-i VERB RESOURCE` asks whether the caller may.
type right struct {
	verb, resource string
	cluster        bool // cluster-scoped (namespaces), else in the run's namespace
}

func (r right) String() string {
	if r.cluster {
		return r.verb + " " + r.resource + " (cluster-scoped)"
	}
	return r.verb + " " + r.resource
}

// rights are what Start and the watch need of the caller's account: a
// namespace per run, its Job, a look at its pods and nodes; with rank
// pods, the controller's account, Role and RoleBinding, and the rights
// the Role grants (RBAC lets an account grant only what it holds).
// docs/kubernetes.md spells them as the ClusterRole abbench-launcher.
func (l *Launcher) rights() []right {
	rs := []right{
		{"create", "namespaces", true}, {"get", "namespaces", true}, {"list", "namespaces", true}, {"delete", "namespaces", true},
		{"create", "jobs.batch", false}, {"get", "jobs.batch", false}, {"get", "pods", false}, {"list", "pods", false},
	}
	if !l.RankPods {
		return rs
	}
	rs = append(rs, right{"create", "serviceaccounts", false}, right{"create", "roles.rbac.authorization.k8s.io", false},
		right{"create", "rolebindings.rbac.authorization.k8s.io", false})
	for _, rule := range rankRules {
		group := rule["apiGroups"].([]string)[0]
		for _, res := range rule["resources"].([]string) {
			if group != "" {
				res += "." + group
			}
			for _, verb := range rule["verbs"].([]string) {
				if r := (right{verb, res, false}); !containsRight(rs, r) {
					rs = append(rs, r)
				}
			}
		}
	}
	return rs
}

func containsRight(rs []right, r right) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// ForbiddenError is a launcher whose account may not do what a run needs:
// nothing of the run was made. It is a usage error (exit 2), fixed by the
// cluster's administrator granting what Missing names.
type ForbiddenError struct {
	// User is who kubectl's context is, as the API server says ("" when
	// it does not).
	User string
	// Missing are the rights the account lacks, "VERB RESOURCE".
	Missing []string
}

func (e *ForbiddenError) Error() string {
	who := "your account"
	if e.User != "" {
		who = "your account " + e.User
	}
	return fmt.Sprintf("kubernetes launcher: %s may not %s: the launcher makes each run a namespace of its own, its Job and, for rank pods, the controller's ServiceAccount, Role and RoleBinding there",
		who, strings.Join(e.Missing, ", "))
}

// Hint says how to grant what is missing.
func (e *ForbiddenError) Hint() string {
	subject := "--user=YOUR-USER"
	if sa, ok := strings.CutPrefix(e.User, "system:serviceaccount:"); ok {
		subject = "--serviceaccount=" + sa
	} else if e.User != "" {
		subject = "--user=" + e.User
	}
	return "an administrator grants them with the ClusterRole abbench-launcher of docs/kubernetes.md (\"The launcher's rights\"): kubectl create clusterrolebinding abbench-launcher --clusterrole=abbench-launcher " + subject
}

// checkRights asks the API server, once per launcher, whether the
// caller may do all a run needs (in namespace, which need not exist
// yet): a *ForbiddenError naming every right it lacks, before anything is
// made, rather than kubectl's first refusal, raw, half-way through a
// List. An answer that is neither yes nor no (the API server not
// answering) is an error of its own.
func (l *Launcher) checkRights(ctx context.Context, namespace string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rightsChecked {
		return nil
	}
	var missing []string
	for _, r := range l.rights() {
		// A cluster-scoped right is asked of no namespace (--all-namespaces):
		// asked in the context's namespace, a Role there would answer yes.
		args := []string{"auth", "can-i", r.verb, r.resource, "--all-namespaces"}
		if !r.cluster {
			args = append(args[:4], "-n", namespace)
		}
		// can-i says yes (status 0) or no (status 1) on its standard output.
		out, err := l.kubectl(ctx, nil, args...)
		switch answer, _, _ := strings.Cut(strings.TrimSpace(string(out)), " "); answer {
		case "yes":
		case "no":
			missing = append(missing, r.String())
		default:
			return fmt.Errorf("kubernetes launcher: asking whether the account may %s: %w", r, err)
		}
	}
	if len(missing) > 0 {
		user, _ := l.kubectl(ctx, nil, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}") // naming the user is a courtesy
		return &ForbiddenError{User: strings.TrimSpace(string(user)), Missing: missing}
	}
	l.rightsChecked = true
	return nil
}

var _ launcher.Checker = (*Launcher)(nil)

// Check implements launcher.Checker: the account's rights, asked of a
// namespace of the launcher's prefix (a run's does not exist yet).
func (l *Launcher) Check(ctx context.Context) error {
	return l.checkRights(ctx, rundir.KubernetesNamespacePrefix+"check")
}
