// Package deploy_test checks the files a user applies or installs: the RBAC file grants what
// mvpctl's live commands read, through bindings the file holds, and no more; the krew
// manifest template and the release's generated one say the same, and name what exists.
package deploy_test

import (
	"os"
	"path"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

const rbacFile = "rbac/mvpctl-clusterrole.yaml"

// The identity the RBAC file binds.
var subject = rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "mvpctl", Namespace: "mvpctl"}

// request is one request mvpctl makes (or must not be allowed to make): a non-resource URL, or
// a verb on a resource, in a namespace ("" for cluster scope).
type request struct {
	verb, url, group, resource, namespace string
	name                                  string // the object named ("" for a list or watch)
}

func (r request) String() string {
	if r.url != "" {
		return r.verb + " " + r.url
	}
	s := r.verb + " " + r.resource + "." + r.group
	if r.name != "" {
		s += "/" + r.name
	}
	return s + " in namespace " + r.namespace
}

// rbacObjects is an RBAC file, document by document, and the identity it binds.
type rbacObjects struct {
	file         string
	subject      rbacv1.Subject
	clusterRoles map[string][]rbacv1.PolicyRule
	roles        map[string][]rbacv1.PolicyRule // by namespace/name
	crbs         []rbacv1.ClusterRoleBinding
	rbs          []rbacv1.RoleBinding
}

func loadRBAC(t *testing.T) rbacObjects {
	t.Helper()
	return loadRBACFile(t, rbacFile, subject)
}

// loadRBACFile reads an RBAC file that binds its roles to subject.
func loadRBACFile(t *testing.T, rbacFile string, subject rbacv1.Subject) rbacObjects {
	t.Helper()
	data, err := os.ReadFile(rbacFile)
	if err != nil {
		t.Fatal(err)
	}
	o := newRBACObjects(rbacFile, subject)
	for i, doc := range strings.Split(string(data), "\n---\n") {
		o.add(t, i+1, doc)
	}
	return o
}

func newRBACObjects(file string, subject rbacv1.Subject) rbacObjects {
	return rbacObjects{file: file, subject: subject, clusterRoles: map[string][]rbacv1.PolicyRule{}, roles: map[string][]rbacv1.PolicyRule{}}
}

// add reads one document (the n-th of o.file) into o: a role or binding, a Namespace or a
// ServiceAccount; any other kind fails the test.
func (o *rbacObjects) add(t *testing.T, n int, doc string) {
	t.Helper()
	rbacFile := o.file
	var meta struct{ Kind string }
	if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
		t.Fatalf("%s: document %d: %v", rbacFile, n, err)
	}
	switch meta.Kind {
	case "ClusterRole":
		var r rbacv1.ClusterRole
		mustUnmarshal(t, rbacFile, doc, &r)
		o.clusterRoles[r.Name] = r.Rules
	case "Role":
		var r rbacv1.Role
		mustUnmarshal(t, rbacFile, doc, &r)
		o.roles[r.Namespace+"/"+r.Name] = r.Rules
	case "ClusterRoleBinding":
		var b rbacv1.ClusterRoleBinding
		mustUnmarshal(t, rbacFile, doc, &b)
		o.crbs = append(o.crbs, b)
	case "RoleBinding":
		var b rbacv1.RoleBinding
		mustUnmarshal(t, rbacFile, doc, &b)
		o.rbs = append(o.rbs, b)
	case "Namespace", "ServiceAccount":
	default:
		t.Fatalf("%s: document %d: unexpected kind %q", rbacFile, n, meta.Kind)
	}
}

func mustUnmarshal(t *testing.T, file, doc string, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// allows reports whether the file's bindings give subject the request, as the RBAC
// authorizer decides it: a ClusterRoleBinding's rules hold everywhere, a RoleBinding's in its
// namespace; non-resource URLs only through ClusterRoleBindings. A binding whose role is not
// in the file fails the test.
func (o rbacObjects) allows(t *testing.T, r request) bool {
	t.Helper()
	for _, b := range o.crbs {
		rules, ok := o.clusterRoles[b.RoleRef.Name]
		if b.RoleRef.Kind != "ClusterRole" || !ok {
			t.Fatalf("ClusterRoleBinding %s: role %s %s is not in %s", b.Name, b.RoleRef.Kind, b.RoleRef.Name, o.file)
		}
		if hasSubject(b.Subjects, o.subject) && rulesAllow(rules, r) {
			return true
		}
	}
	for _, b := range o.rbs {
		var rules []rbacv1.PolicyRule
		var ok bool
		switch b.RoleRef.Kind {
		case "Role":
			rules, ok = o.roles[b.Namespace+"/"+b.RoleRef.Name]
		case "ClusterRole":
			rules, ok = o.clusterRoles[b.RoleRef.Name]
		}
		if !ok {
			t.Fatalf("RoleBinding %s/%s: role %s %s is not in %s (a Role must be in the binding's namespace)", b.Namespace, b.Name, b.RoleRef.Kind, b.RoleRef.Name, o.file)
		}
		if r.url == "" && r.namespace == b.Namespace && hasSubject(b.Subjects, o.subject) && rulesAllow(rules, r) {
			return true
		}
	}
	return false
}

func hasSubject(subjects []rbacv1.Subject, subject rbacv1.Subject) bool {
	for _, s := range subjects {
		if s == subject {
			return true
		}
	}
	return false
}

func rulesAllow(rules []rbacv1.PolicyRule, r request) bool {
	for _, rule := range rules {
		if !matches(rule.Verbs, r.verb) {
			continue
		}
		if r.url != "" {
			for _, u := range rule.NonResourceURLs {
				if u == r.url || u == "*" || (strings.HasSuffix(u, "*") && strings.HasPrefix(r.url, strings.TrimSuffix(u, "*"))) {
					return true
				}
			}
			continue
		}
		if matches(rule.APIGroups, r.group) && matches(rule.Resources, r.resource) && (len(rule.ResourceNames) == 0 || r.name != "" && matches(rule.ResourceNames, r.name)) {
			return true
		}
	}
	return false
}

func matches(list []string, v string) bool {
	for _, x := range list {
		if x == v || x == "*" {
			return true
		}
	}
	return false
}

// TestRBACGrantsWhatMvpctlReads: the requests of docs/ci.md's RBAC table, each allowed to the
// identity the file binds, and a few it must not get.
func TestRBACGrantsWhatMvpctlReads(t *testing.T) {
	o := loadRBAC(t)
	o.checkGrants(t, "mvpctl-prober", "mvpctl-managed-fields")
}

// checkGrants checks that o grants what the live commands read and nothing else; every role
// is bound but unbound (a role for another use).
func (o rbacObjects) checkGrants(t *testing.T, unbound ...string) {
	t.Helper()
	rbacFile, subject := o.file, o.subject
	lease := func(verb, ns string) request {
		return request{verb: verb, group: "coordination.k8s.io", resource: "leases", namespace: ns}
	}
	for _, r := range []request{
		{verb: "get", url: "/api"}, {verb: "get", url: "/api/v1"}, {verb: "get", url: "/apis"},
		{verb: "get", url: "/apis/batch/v1"}, {verb: "get", url: "/version"}, {verb: "get", url: "/readyz"},
		{verb: "get", url: "/readyz/etcd"}, {verb: "get", url: "/metrics"},
		lease("get", "kube-system"), lease("list", "kube-system"), lease("watch", "kube-system"),
		{verb: "list", group: "apiextensions.k8s.io", resource: "customresourcedefinitions"},
		{verb: "list", group: "apiregistration.k8s.io", resource: "apiservices"},
		{verb: "list", group: "internal.apiserver.k8s.io", resource: "storageversions"},
		{verb: "get", resource: "configmaps", namespace: "kube-system", name: "kubeadm-config"},
	} {
		if !o.allows(t, r) {
			t.Errorf("%s is not granted to %s/%s by %s", r, subject.Namespace, subject.Name, rbacFile)
		}
	}
	for _, r := range []request{
		lease("list", "default"), lease("create", "kube-system"), lease("delete", "kube-system"),
		{verb: "get", resource: "secrets", namespace: "kube-system"},
		{verb: "list", resource: "pods", namespace: "default"}, // mvpctl-prober's: not bound here
		{verb: "get", url: "/debug/pprof/profile"},
		{verb: "get", resource: "configmaps", namespace: "kube-system", name: "kube-proxy"},
		{verb: "list", resource: "configmaps", namespace: "kube-system"},
		{verb: "get", resource: "configmaps", namespace: "default", name: "kubeadm-config"},
	} {
		if o.allows(t, r) {
			t.Errorf("%s is granted by %s: more than mvpctl reads", r, rbacFile)
		}
	}
	// Every role is bound, but the prober's, which only `mvpctl probe` needs, and the optional
	// managedFields reader's.
	bound := map[string]bool{}
	for _, name := range unbound {
		bound["ClusterRole/"+name] = true
	}
	for _, b := range o.crbs {
		bound["ClusterRole/"+b.RoleRef.Name] = true
	}
	for _, b := range o.rbs {
		bound["Role/"+b.Namespace+"/"+b.RoleRef.Name] = true
	}
	for name := range o.clusterRoles {
		if !bound["ClusterRole/"+name] {
			t.Errorf("ClusterRole %s has no ClusterRoleBinding in %s", name, rbacFile)
		}
	}
	for name := range o.roles {
		if !bound["Role/"+name] {
			t.Errorf("Role %s has no RoleBinding in its namespace in %s", name, rbacFile)
		}
	}
}

// The lease Role without its RoleBinding (a gap seen in practice), and a ClusterRole bound to
// another subject: the check notices both.
func TestRBACCheckFailsWithoutTheBinding(t *testing.T) {
	o := loadRBAC(t)
	watchLeases := request{verb: "watch", group: "coordination.k8s.io", resource: "leases", namespace: "kube-system"}
	if !o.allows(t, watchLeases) {
		t.Fatal("the file does not grant watch on leases")
	}
	noRB := o
	noRB.rbs = nil
	if noRB.allows(t, watchLeases) {
		t.Error("watch on leases allowed without any RoleBinding")
	}
	other := o
	other.crbs = append([]rbacv1.ClusterRoleBinding(nil), o.crbs...)
	for i := range other.crbs {
		other.crbs[i].Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "someone-else"}}
	}
	if other.allows(t, request{verb: "get", url: "/apis"}) {
		t.Error("get /apis allowed through a ClusterRoleBinding of another subject")
	}
}

// TestKrewManifests: the template deploy/krew/mvp.yaml and the manifest .goreleaser.yaml
// writes have the same caveats (TAG for {{ .Tag }}); the caveats name every verb the lease
// Role grants and a path of this repository; the archives carry the LICENSE and that file.
func TestKrewManifests(t *testing.T) {
	var tmpl struct {
		Spec struct{ Caveats, ShortDescription, Description string }
	}
	readYAML(t, "krew/mvp.yaml", &tmpl)
	var gr struct {
		Archives []struct{ Files []any }
		Krews    []struct {
			Caveats          string
			ShortDescription string `json:"short_description"`
			Description      string
		}
	}
	readYAML(t, "../.goreleaser.yaml", &gr)
	if len(gr.Krews) != 1 || len(gr.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: want one krews and one archives entry, got %d, %d", len(gr.Krews), len(gr.Archives))
	}
	k := gr.Krews[0]
	if got := strings.ReplaceAll(k.Caveats, "{{ .Tag }}", "TAG"); got != tmpl.Spec.Caveats {
		t.Errorf("caveats differ:\n.goreleaser.yaml:\n%s\ndeploy/krew/mvp.yaml:\n%s", got, tmpl.Spec.Caveats)
	}
	if k.ShortDescription != tmpl.Spec.ShortDescription || k.Description != tmpl.Spec.Description {
		t.Error("the descriptions of .goreleaser.yaml's krews and deploy/krew/mvp.yaml differ")
	}
	o := loadRBAC(t)
	for _, rule := range o.roles["kube-system/mvpctl-leases"] {
		for _, v := range rule.Verbs {
			if !strings.Contains(tmpl.Spec.Caveats, v) {
				t.Errorf("the krew caveats do not name the verb %q the lease Role grants", v)
			}
		}
	}
	if !strings.Contains(tmpl.Spec.Caveats, "/TAG/deploy/"+rbacFile) {
		t.Errorf("the krew caveats do not give the RBAC file's URL at the release tag (/TAG/deploy/%s)", rbacFile)
	}
	files := map[string]bool{}
	for _, f := range gr.Archives[0].Files {
		switch f := f.(type) {
		case string:
			files[f] = true
		case map[string]any:
			files[f["src"].(string)] = true
		}
	}
	for _, want := range []string{"LICENSE", "README.md", path.Join("deploy", rbacFile), "deploy/krew/kubectl_complete-mvp"} {
		if !files[want] {
			t.Errorf(".goreleaser.yaml: the archives do not carry %s", want)
		}
		if _, err := os.Stat(path.Join("..", want)); err != nil {
			t.Errorf("%s, which the archives carry: %v", want, err)
		}
	}
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}
