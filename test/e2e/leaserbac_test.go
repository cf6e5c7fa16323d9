package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestSnapshotWithoutLeaseRBAC, on a real v1.36 apiserver: a user who may read discovery but
// not list the identity leases in kube-system. mvpctl snapshot reads the kubeconfig's server
// alone, and cannot know the plane's other apiservers nor the down ones: it says so first,
// records it in the file (cluster.identityLeases: listed: false, with the 403) and exits 2;
// routes from that file says it first and exits 2 too, and so does a watch; the exporter (watch --metrics-address)
// counts its reads partial and /readyz answers 503 with the reason. Granted the lease list,
// the same user's snapshot records the leases listed and exits 0, and the exporter is ready.
func TestSnapshotWithoutLeaseRBAC(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-a", Version: harness.V1_36})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const user = "mvpctl-no-leases"
	admin := cp.Server("kas-a")
	post := func(path, body string) {
		t.Helper()
		r, err := admin.Do(ctx, http.MethodPost, path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(body))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %v %v", path, err, r)
		}
	}
	const rbacAPI = "/apis/rbac.authorization.k8s.io/v1"
	post(rbacAPI+"/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"no-leases-reader"},"rules":[
		{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/version","/readyz","/readyz/*"],"verbs":["get"]},
		{"apiGroups":["apiextensions.k8s.io"],"resources":["customresourcedefinitions"],"verbs":["list"]},
		{"apiGroups":["apiregistration.k8s.io"],"resources":["apiservices"],"verbs":["list"]}]}`)
	post(rbacAPI+"/clusterrolebindings", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"no-leases-reader"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"no-leases-reader"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"`+user+`"}]}`)
	kubeconfig, c := userKubeconfig(t, cp, admin, user)
	const leasesPath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
	// RBAC is enforced from an informer cache: wait until path answers code to the user.
	waitStatus := func(path string, code int) {
		t.Helper()
		for {
			r, err := admin.DoWith(ctx, c, http.MethodGet, path, nil, nil)
			if err == nil && r.StatusCode == code {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("GET %s as %s: %v %v, want %d", path, user, err, r, code)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitStatus("/apis", http.StatusOK)
	waitStatus(leasesPath, http.StatusForbidden)

	dir := t.TempDir()
	snap, r := mvpctlSnapshot(t, dir+"/no-leases.json", []int{2}, "--kubeconfig", kubeconfig)
	lines := strings.Split(strings.TrimSpace(string(r.Stderr)), "\n")
	const why = "the identity leases in kube-system could not be listed ("
	if !strings.HasPrefix(lines[0], "warning: cannot list the identity leases in kube-system (") || !strings.Contains(lines[0], "403") ||
		!strings.HasPrefix(lines[len(lines)-1], "warning: partial result: "+why) || !strings.HasSuffix(lines[len(lines)-1], "): other apiservers, and any that are down, are not known") {
		t.Errorf("%s\nwant the unlisted leases said first, and the partial result last", r)
	}
	if il := snap.Cluster.IdentityLeases; il == nil || il.Listed || !strings.Contains(il.Error, "403") || !strings.Contains(il.Error, user) {
		t.Errorf("cluster.identityLeases = %+v, want not listed, with the 403", il)
	}
	if len(snap.Servers) != 1 || !snap.Servers[0].Reachable || snap.Servers[0].IdentityLease != nil {
		t.Errorf("servers %+v: want the kubeconfig's server, read, without identity", snap.Servers)
	}

	r = runMvpctl(t, "routes", "--snapshot", snap.Path, "--all")
	if lines := strings.Split(string(r.Stderr), "\n"); r.Exit != 2 || !strings.HasPrefix(lines[0], "warning: "+why) ||
		!strings.Contains(string(r.Stderr), "warning: partial result: "+why) || !strings.Contains(string(r.Stdout), "batch/v1/jobs") {
		t.Errorf("%s\nwant routes from the file to say the unlisted leases first and exit 2", r)
	}

	// A watch, as the same user: no window, but its reads could not know the plane (exit 2).
	r = runMvpctl(t, "watch", "--interval", "500ms", "--timeout-total", "2s", "-o", "json", "--kubeconfig", kubeconfig)
	if r.Exit != 2 || !strings.Contains(string(r.Stdout), `"leasesNotListed":`) ||
		!strings.Contains(string(r.Stderr), "could not list the identity leases in kube-system (other apiservers, and any that are down, were not known)") {
		t.Errorf("%s\nwant the watch partial (exit 2) for its reads without the lease list", r)
	}

	// The exporter, as the same user: its reads are partial and /readyz answers 503 with the
	// reason, as it cannot know the plane; ready once the leases are listed (below).
	get := startExporter(ctx, t, kubeconfig)
	waitFor(t, "a partial read on /metrics", 60*time.Second, func() bool {
		_, body := get("/metrics")
		return strings.Contains(body, `mvpctl_reads_total{result="partial"}`) && strings.Contains(body, `mvpctl_apiserver_up{server="`)
	})
	if code, body := get("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not ready: "+why) {
		t.Errorf("/readyz answers %d %q without the lease list, want 503 saying why", code, body)
	}

	// Granted the lease list, the snapshot is whole.
	post(rbacAPI+"/namespaces/kube-system/roles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"no-leases-leases","namespace":"kube-system"},"rules":[
		{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","list"]}]}`)
	post(rbacAPI+"/namespaces/kube-system/rolebindings", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"no-leases-leases","namespace":"kube-system"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"no-leases-leases"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"`+user+`"}]}`)
	waitStatus(leasesPath, http.StatusOK)
	snap, r = mvpctlSnapshot(t, dir+"/leases.json", []int{0}, "--kubeconfig", kubeconfig)
	if il := snap.Cluster.IdentityLeases; il == nil || !il.Listed || il.Error != "" || strings.Contains(string(r.Stderr), "identity leases") {
		t.Errorf("%s\ncluster.identityLeases = %+v, want listed", r, il)
	}
	waitFor(t, "the exporter ready once the leases are listed", 60*time.Second, func() bool {
		code, _ := get("/readyz")
		return code == http.StatusOK
	})
}
