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

	// The lease names no address, so its server is listed unread: a partial result (exit 2).
	partial := func(r mvpctlResult) {
		t.Helper()
		clean(r)
		if r.Exit != 2 || !strings.Contains(string(r.Stderr), "partial result") || !strings.Contains(string(r.Stdout), "batch/v1/jobs") {
			t.Errorf("%s\nwant the jobs row and exit 2 (a partial result: the lease's server is not read)", r)
		}
	}
	r := runMvpctl(t, "routes", "--kubeconfig", cp.Kubeconfig, "--resource", "jobs.batch")
	partial(r)
	if !strings.Contains(string(r.Stderr), "recorded as escapes (\\x1b) in servers[0].identityLease.holderIdentity") {
		t.Errorf("%s\nwant a warning naming the lease's holderIdentity", r)
	}
	snapPath := filepath.Join(t.TempDir(), "hostile.json")
	r = runMvpctl(t, "snapshot", "--kubeconfig", cp.Kubeconfig, "-f", snapPath)
	clean(r)
	data, err := os.ReadFile(snapPath)
	// As YAML writes the recorded text (a plain scalar), or JSON (its backslashes escaped).
	recorded := strings.Contains(string(data), `apiserver-e2e-hostile_\x1b]0;pwned\x07\x1b[2J`) ||
		strings.Contains(string(data), `apiserver-e2e-hostile_\\x1b]0;pwned\\x07\\x1b[2J`)
	if err != nil || !recorded || strings.ContainsAny(string(data), "\x1b\x07") {
		i := strings.Index(string(data), "apiserver-e2e-hostile_")
		t.Errorf("%s\nthe snapshot does not record the holder escaped (%v): %.80q", r, err, string(data[max(i, 0):]))
	}
	partial(runMvpctl(t, "routes", "--snapshot", snapPath, "--resource", "jobs.batch"))

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
	partial(r)
	if !strings.Contains(string(r.Stderr), ".context") {
		t.Errorf("%s\nwant a warning naming the server's context", r)
	}

	// A lease whose peer-advertise address would colour the terminal and forge a line of its
	// own (CR LF, the line separator), and join what is read (a zero-width joiner): shown
	// escaped, on the line of the warning that names it.
	forged := "\x1b[31m\r\nFAKE-LINE: all good\u2028gad\u200dgets"
	if _, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "apiserver-e2e-forged", Labels: map[string]string{
			"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "cp-forged"},
			Annotations: map[string]string{"kubernetes.io/peer-advertise-address": forged}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &dur, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"routes", "--kubeconfig", cp.Kubeconfig, "--resource", "jobs.batch"},
		{"snapshot", "--kubeconfig", cp.Kubeconfig, "-f", filepath.Join(t.TempDir(), "forged.yaml")},
	} {
		r := runMvpctl(t, args...)
		clean(r)
		out := string(r.Stdout) + string(r.Stderr)
		if strings.ContainsAny(out, "\r\u2028\u200d") || !strings.Contains(out, `\x1b[31m\x0d\x0aFAKE-LINE: all good\u2028gad\u200dgets`) {
			t.Errorf("%s\nwant the address shown escaped, no line break or invisible character as it is", r)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "FAKE-LINE") {
				t.Errorf("%s\na line of its own from the lease's address: %q", r, line)
			}
		}
	}
}
