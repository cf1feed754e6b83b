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
	return appendRuleRights(rs)
}

// appendRuleRights adds to rs the rights of rankRules it lacks: RBAC lets
// an account grant only what it holds.
func appendRuleRights(rs []right) []right {
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
	// Namespace is the tenant's namespace they were asked in; "" for a
	// launcher that makes a namespace per run.
	Namespace string
}

func (e *ForbiddenError) Error() string {
	who := "your account"
	if e.User != "" {
		who = "your account " + e.User
	}
	if e.Namespace != "" {
		return fmt.Sprintf("kubernetes launcher: %s may not %s in namespace %s: the launcher makes each run's Job there and, for rank pods, the controller's ServiceAccount, Role and RoleBinding, and deletes them with the run",
			who, strings.Join(e.Missing, ", "), e.Namespace)
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
	if e.Namespace != "" {
		return "an administrator grants them with the Role abbench-tenant of docs/kubernetes.md (\"A namespaced tenant\"): kubectl create rolebinding abbench-tenant -n " + e.Namespace + " --role=abbench-tenant " + subject
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
	if err := l.resolveTenant(ctx); err != nil {
		return err
	}
	rights := l.rights()
	if l.Tenant != nil {
		if err := l.checkTenant(); err != nil {
			return err
		}
		rights, namespace = l.tenantRights(), l.Tenant.Namespace
	}
	var missing []string
	for _, r := range rights {
		ok, err := l.canI(ctx, r, namespace)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, r.String())
		}
	}
	if len(missing) > 0 {
		user, _ := l.kubectl(ctx, nil, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}") // naming the user is a courtesy
		f := &ForbiddenError{User: strings.TrimSpace(string(user)), Missing: missing}
		if l.Tenant != nil {
			f.Namespace = l.Tenant.Namespace
		}
		return f
	}
	l.rightsChecked = true
	return nil
}

// canI asks the API server whether kubectl's account may r (in
// namespace, which need not exist yet). An answer that is neither yes
// nor no (the API server not answering) is an error of its own.
func (l *Launcher) canI(ctx context.Context, r right, namespace string) (bool, error) {
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
		return true, nil
	case "no":
		return false, nil
	default:
		return false, fmt.Errorf("kubernetes launcher: asking whether the account may %s: %w", r, err)
	}
}

// resolveTenant makes the launcher a tenant (Fallback's options) where
// none was asked for and the account may not create namespaces: in
// Fallback's namespace, else kubectl's context's ("default" where it
// names none).
func (l *Launcher) resolveTenant(ctx context.Context) error {
	if l.Tenant != nil || l.Fallback == nil {
		return nil
	}
	ok, err := l.canI(ctx, right{"create", "namespaces", true}, "")
	if err != nil || ok {
		return err
	}
	t := *l.Fallback
	if t.Namespace == "" {
		out, err := l.kubectl(ctx, nil, "config", "view", "--minify", "-o", "jsonpath={..namespace}")
		if err != nil {
			return fmt.Errorf("kubernetes launcher: kubectl's namespace: %w", err)
		}
		t.Namespace = or(strings.TrimSpace(string(out)), "default")
	}
	l.Tenant = &t
	return nil
}

var _ launcher.Checker = (*Launcher)(nil)

// Check implements launcher.Checker: the account's rights, asked of a
// namespace of the launcher's prefix (a run's does not exist yet).
func (l *Launcher) Check(ctx context.Context) error {
	return l.checkRights(ctx, rundir.KubernetesNamespacePrefix+"check")
}
