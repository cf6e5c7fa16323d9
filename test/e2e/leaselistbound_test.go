package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestIdentityLeaseListBounded, on a real v1.36 apiserver: an identity-lease list larger than
// 4 MiB (27 leases carrying a 200 KB annotation each, 5.4 MB: any client that may write
// leases in kube-system can write them) is not read whole; the read says which bound refused
// it, in one warning, and the routing is still read from the kubeconfig's server, as a
// partial result.
// (Before the bound the 5.4 MB list was read whole, up to the 128 MiB of any answer.)
func TestIdentityLeaseListBounded(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.36 control plane")
	}
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-a", Version: harness.V1_36})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(cp.Server("kas-a").RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	padding := strings.Repeat("x", 200_000)
	for i := range 27 {
		if _, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("apiserver-e2e-padded-%02d", i),
				Labels:      map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"},
				Annotations: map[string]string{"e2e.mvpctl.io/padding": padding}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	r := runMvpctl(t, "routes", "--kubeconfig", cp.Kubeconfig, "--resource", "jobs.batch")
	stderr := string(r.Stderr)
	// One warning as it happens; the partial result's line, last, says it again.
	if n := strings.Count(stderr, "warning: cannot list the identity leases in kube-system"); n != 1 ||
		strings.Count(stderr, "the lease list is larger than 4 MiB: not read") != 2 || strings.Contains(stderr, "internal error") {
		t.Errorf("%s\nwant one warning that the identity leases were not listed, naming the 4 MiB bound", r)
	}
	// A lease list that cannot be read is a partial read, as when it is forbidden: the server
	// the kubeconfig names is read all the same, and the others cannot be known (exit 2).
	if r.Exit != 2 || !strings.Contains(string(r.Stdout), "batch/v1/jobs") ||
		!strings.Contains(stderr, "warning: partial result: the identity leases in kube-system could not be listed (") {
		t.Errorf("%s\nwant the jobs row read from the kubeconfig's server, and a partial result (exit 2)", r)
	}
}
