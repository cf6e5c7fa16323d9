package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestHostileTextIsData, on a real v1.36 apiserver: text a cluster or a kubeconfig holds is
// data. An identity lease whose holderIdentity holds escape sequences (any client that may
// write leases in kube-system can write one) and a kubeconfig context whose name does are
// recorded escaped, with a warning naming the field — never "internal error … please
// report it" — and no escape sequence reaches stdout or stderr.
func TestHostileTextIsData(t *testing.T) {
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
	const hostile = "\x1b]0;pwned\x07\x1b[2J"
	holder := "apiserver-e2e-hostile_" + hostile
	dur := int32(3600)
	now := metav1.NewMicroTime(time.Now())
	if _, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "apiserver-e2e-hostile", Labels: map[string]string{
			"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "cp-hostile"}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clean := func(r mvpctlResult) {
		t.Helper()
		if strings.ContainsAny(string(r.Stdout)+string(r.Stderr), "\x1b\x07") || strings.Contains(string(r.Stderr), "internal error") {
			t.Errorf("%s\nwant no escape sequence and no internal error; stdout:\n%q", r, r.Stdout)
		}
	}

	r := runMvpctl(t, "routes", "--kubeconfig", cp.Kubeconfig, "--resource", "jobs.batch")
	clean(r)
	if r.Exit != 0 || !strings.Contains(string(r.Stderr), "identityLease.holderIdentity") {
		t.Errorf("%s\nwant exit 0 and a warning naming the lease's holderIdentity", r)
	}
	snapPath := filepath.Join(t.TempDir(), "hostile.json")
	r = runMvpctl(t, "snapshot", "--kubeconfig", cp.Kubeconfig, "-f", snapPath)
	clean(r)
	data, err := os.ReadFile(snapPath)
	if err != nil || !strings.Contains(string(data), `apiserver-e2e-hostile_\\x1b]0;pwned\\x07\\x1b[2J`) {
		t.Errorf("%s\nthe snapshot does not record the holder escaped (%v)", r, err)
	}
	if r := runMvpctl(t, "routes", "--snapshot", snapPath, "--resource", "jobs.batch"); r.Exit != 0 {
		t.Errorf("%s\nthe snapshot taken does not load", r)
	}

	// A context named with escape sequences, in a copy of the admin kubeconfig.
	cfg, err := clientcmd.LoadFromFile(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctxName := "admin" + hostile
	cfg.Contexts[ctxName] = cfg.Contexts[cfg.CurrentContext]
	delete(cfg.Contexts, cfg.CurrentContext)
	cfg.CurrentContext = ctxName
	renamed := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, renamed); err != nil {
		t.Fatal(err)
	}
	r = runMvpctl(t, "routes", "--kubeconfig", renamed, "--context", ctxName, "--resource", "jobs.batch")
	clean(r)
	if r.Exit != 0 {
		t.Errorf("%s\nwant the context's servers read", r)
	}
}
