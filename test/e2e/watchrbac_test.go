package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestWatchWithoutWatchRBAC runs `mvpctl watch` as a user who may read discovery and list the
// identity leases, but not watch them nor read /metrics (the RBAC of deploy/rbac before the
// watch verb, without mvpctl-prober): the lease watch's 403 is said once, and the watch goes
// on with interval reads; each server's unreadable /metrics is said once, not per interval,
// and the summary names them as not read; no read fails.
func TestWatchWithoutWatchRBAC(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const user = "mvpctl-watcher"
	admin := cp.Server("kas-a")
	for _, o := range []struct{ path, body string }{
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"watcher-reader"},"rules":[
			{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/version","/readyz","/readyz/*"],"verbs":["get"]},
			{"apiGroups":["apiextensions.k8s.io"],"resources":["customresourcedefinitions"],"verbs":["list"]},
			{"apiGroups":["apiregistration.k8s.io"],"resources":["apiservices"],"verbs":["list"]}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"watcher-reader"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"watcher-reader"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"` + user + `"}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"watcher-leases","namespace":"kube-system"},"rules":[
			{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","list"]}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"watcher-leases","namespace":"kube-system"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"watcher-leases"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"` + user + `"}]}`},
	} {
		r, err := admin.Do(ctx, http.MethodPost, o.path, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(o.body))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %v %v", o.path, err, r)
		}
	}
	kubeconfig, c := userKubeconfig(t, cp, admin, user)
	// RBAC is enforced from an informer cache: wait until the user can list the leases.
	for {
		r, err := admin.DoWith(ctx, c, http.MethodGet, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", nil, nil)
		if err == nil && r.StatusCode == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the user cannot list the leases: %v %v", err, r)
		}
		time.Sleep(200 * time.Millisecond)
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(mvpctlBinary(t), "watch", "--interval", "500ms", "--timeout-total", "8s", "-o", "json", "--kubeconfig", kubeconfig)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("mvpctl watch: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d, want 0: no window, no read failed (the traffic not read does not change the code)", code)
	}
	errText := stderr.String()
	if n := strings.Count(errText, "warning: cannot watch the identity leases in kube-system"); n != 1 ||
		!strings.Contains(errText, "grant list and watch on leases in kube-system") {
		t.Errorf("%d lease-watch warnings, want one naming the RBAC", n)
	}
	for _, s := range []string{"kas-a", "kas-b"} {
		if n := strings.Count(errText, "warning: cannot read the proxy counters of "+s+" "); n != 1 {
			t.Errorf("%d warnings about %s's /metrics, want 1", n, s)
		}
	}
	var sum struct {
		Kind        string `json:"kind"`
		Snapshots   int    `json:"snapshots"`
		ReadsFailed int    `json:"readsFailed"`
		Traffic     *struct {
			NotRead map[string]string `json:"notRead"`
		} `json:"traffic"`
	}
	var added int
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var l struct{ Kind, Type string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		if l.Type == "server-added" {
			added++
		}
		if l.Kind == "WatchSummary" {
			_ = json.Unmarshal(sc.Bytes(), &sum)
		}
	}
	if added != 2 || sum.Kind != "WatchSummary" || sum.ReadsFailed != 0 || sum.Snapshots < 8 {
		t.Errorf("%d servers added, summary %+v: want 2, a summary, no failed read, reads every 500ms", added, sum)
	}
	if sum.Traffic == nil || len(sum.Traffic.NotRead) != 2 || !strings.Contains(sum.Traffic.NotRead["kas-a"], "403") {
		t.Errorf("summary traffic %+v: want kas-a and kas-b not read, with the 403", sum.Traffic)
	}
}
