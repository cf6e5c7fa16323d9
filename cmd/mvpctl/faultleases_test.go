package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// leaseCases: the identity-lease list refused (403) by a plane of two servers. The kubeconfig's
// server is read alone, the other cannot be known: the read is partial (exit 2), said first.
func leaseCases() []processCase {
	forbidden := func(args ...string) func(t *testing.T, dir string) processRun {
		return func(t *testing.T, dir string) processRun {
			a := &pt.Server{Name: "cp-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
			b := &pt.Server{Name: "cp-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
			c := pt.Start(t, a, b)
			refuse := func(w http.ResponseWriter, _ *http.Request) {
				dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, `leases.coordination.k8s.io is forbidden: User "u" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"`)
			}
			for _, s := range []*pt.Server{a, b} {
				s.Fake.Override = map[string]http.HandlerFunc{"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases": refuse}
			}
			return processRun{args: append(append([]string{}, args...), "--kubeconfig", c.Kubeconfig(t), "--timeout", "10s"), dir: dir}
		}
	}
	saidFirst := func(t *testing.T, r processResult) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if !strings.HasPrefix(lines[0], "warning: cannot list the identity leases in kube-system (") ||
			!strings.HasPrefix(lines[len(lines)-1], "warning: partial result: the identity leases in kube-system could not be listed (") {
			t.Errorf("want the unlisted leases said first and the partial result last:\n%s", r.stderr)
		}
	}
	return []processCase{
		{fault: "server: the identity-lease list forbidden (403)", command: "routes --timeout 10s", exit: ExitIncomplete, within: 3 * time.Second,
			setup: forbidden("routes"), check: saidFirst},
		{fault: "server: the identity-lease list forbidden (403)", command: "snapshot -f FILE --timeout 10s", exit: ExitIncomplete, within: 3 * time.Second,
			setup: forbidden("snapshot", "-f", "snap.yaml"), check: saidFirst},
	}
}
