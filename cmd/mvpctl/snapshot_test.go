package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

const testToken = "eyJhbGciOiJSUzI1NiJ9.bXZwY3RsLXNuYXBzaG90LXRlc3Q.c2lnbmF0dXJl"

// snapshotFixture is a control plane of two answering apiservers and one crashed one, and a
// kubeconfig for it holding a token and a client certificate.
type snapshotFixture struct {
	a, b       *dt.Server
	dead       string
	kubeconfig string
	secrets    []string
}

func newSnapshotFixture(t *testing.T) *snapshotFixture {
	t.Helper()
	p := dt.NewPKI(t)
	cluster := &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}
	a := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Hooks: dt.Hooks136, Token: testToken}).Start(t, p)
	b := (&dt.Server{Cluster: cluster, GitVersion: "v1.37.1", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(false), Hooks: dt.Hooks136, Token: testToken}).Start(t, p)
	dead := b.Addr()[:strings.LastIndex(b.Addr(), ":")] + ":1" // port 1: nothing listens
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "kas-a", a.Addr(), time.Now()),
		dt.IdentityLease("apiserver-bbbbbbbbbbbbbbbbbbbbbbbbbb", "kas-b", b.Addr(), time.Now()),
	}
	certPEM, keyPEM := p.ClientCert(t, "kubernetes-admin", "system:masters")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: a.URL(), CertificateAuthorityData: p.CAPEM}
	kc.Clusters["test-b"] = &clientcmdapi.Cluster{Server: b.URL(), CertificateAuthorityData: p.CAPEM}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: testToken, ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	kc.Contexts["ctx-a"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	kc.Contexts["ctx-b"] = &clientcmdapi.Context{Cluster: "test-b", AuthInfo: "admin"}
	kc.CurrentContext = "ctx-a"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	secrets := []string{testToken, string(certPEM), string(keyPEM)}
	for _, pem := range [][]byte{certPEM, keyPEM} {
		for _, line := range strings.Split(string(pem), "\n") {
			if len(line) > 20 && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, line)
			}
		}
	}
	return &snapshotFixture{a: a, b: b, dead: dead, kubeconfig: path, secrets: secrets}
}

func (f *snapshotFixture) addDeadLease(t *testing.T) {
	f.a.Cluster.Leases = append(f.a.Cluster.Leases, dt.IdentityLease("apiserver-cccccccccccccccccccccccccc", "kas-c", f.dead, time.Now().Add(-time.Hour)))
}

func (f *snapshotFixture) assertNoSecrets(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range f.secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s contains a credential (%.30q…)", where, s)
		}
	}
}

// TestSnapshotPartialToFile: a snapshot with an unreachable server is still written, exit 2,
// one warning line per failed server, nothing on stdout, no credentials anywhere.
func TestSnapshotPartialToFile(t *testing.T) {
	f := newSnapshotFixture(t)
	f.addDeadLease(t)
	out := filepath.Join(t.TempDir(), "snap.yaml")
	stdout, stderr, code := run(t, "snapshot", "--kubeconfig", f.kubeconfig, "-f", out, "--timeout", "5s")
	if code != ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitIncomplete, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	wantLine := "warning: server kas-c (https://" + f.dead + "): GET /version: connection refused — nothing listens there"
	if !strings.Contains(stderr, wantLine) || !strings.Contains(stderr, "warning: partial result: 1 of 3 apiservers could not be read") {
		t.Errorf("stderr:\n%s\nwant a line %q", stderr, wantLine)
	}
	if strings.Contains(stderr, "[discovery]") {
		t.Errorf("progress printed to a non-terminal: %q", stderr)
	}
	snap, err := snapshot.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(snap.ServerNames(), ","); got != "kas-a,kas-b,kas-c" {
		t.Errorf("servers %s", got)
	}
	if c := snap.Find("kas-c"); c.Reachable || c.Error == "" {
		t.Errorf("kas-c %+v", c)
	}
	if want := `context "ctx-a" (` + f.a.URL() + `)`; snap.Source != want {
		t.Errorf("source %q, want %q", snap.Source, want)
	}
	data, _ := os.ReadFile(out)
	f.assertNoSecrets(t, "snapshot file", string(data))
	f.assertNoSecrets(t, "stderr", stderr)
}

// TestSnapshotJSONToStdout: a complete snapshot as JSON on stdout, exit 0.
func TestSnapshotJSONToStdout(t *testing.T) {
	f := newSnapshotFixture(t)
	stdout, stderr, code := run(t, "snapshot", "--kubeconfig", f.kubeconfig, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc["kind"] != "Snapshot" {
		t.Fatalf("stdout is not a JSON Snapshot (%v): %.200s", err, stdout)
	}
	snap, err := snapshot.Decode([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if snap.Partial() || len(snap.Servers) != 2 || snap.Find("kas-b").Version != "v1.37.1" {
		t.Errorf("%+v", snap.Servers)
	}
	f.assertNoSecrets(t, "stdout", stdout)
}

// TestSnapshotProgressOnTerminal: progress lines only when stderr is a terminal.
func TestSnapshotProgressOnTerminal(t *testing.T) {
	f := newSnapshotFixture(t)
	var out, errOut bytes.Buffer
	code := Execute([]string{"snapshot", "--kubeconfig", f.kubeconfig, "-f", filepath.Join(t.TempDir(), "s.yaml")},
		Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, ErrIsTerminal: true})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"[discovery] found 2 apiservers via identity leases\n", "[discovery] fetched 2/2\n", "[discovery] wrote "} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr %q lacks %q", errOut.String(), want)
		}
	}
}

// TestSnapshotContextsAndFlags: --contexts reads one server per context; kubectl's
// connection flags (--server, --token, --certificate-authority) work without a kubeconfig.
func TestSnapshotContextsAndFlags(t *testing.T) {
	f := newSnapshotFixture(t)
	stdout, stderr, code := run(t, "snapshot", "--kubeconfig", f.kubeconfig, "--contexts", "ctx-a,ctx-b")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	snap, err := snapshot.Decode([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snap.Servers {
		if s.FoundBy != "context" || s.ID == "" {
			t.Errorf("%s: foundBy %q id %q", s.Name, s.FoundBy, s.ID)
		}
	}

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	kc, _ := clientcmd.LoadFromFile(f.kubeconfig)
	if err := os.WriteFile(ca, kc.Clusters["test"].CertificateAuthorityData, 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	// --leases=false: only the named server is dialled; the other apiserver the leases know of
	// is still listed, as not contacted, so the snapshot is partial.
	stdout, stderr, code = run(t, "snapshot", "--kubeconfig", empty, "--server", f.a.URL(), "--token", testToken, "--certificate-authority", ca, "--leases=false")
	if code != ExitIncomplete {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if snap, err = snapshot.Decode([]byte(stdout)); err != nil || len(snap.Servers) != 2 || !snap.Find("kas-a").Reachable || snap.Find("kas-b").Reachable {
		t.Errorf("%v %+v", err, snap)
	}
	if !strings.Contains(stderr, "warning: server kas-b ("+f.b.Addr()+"): not contacted: no --endpoint or context reached it — add --endpoint https://"+f.b.Addr()) {
		t.Errorf("stderr %q", stderr)
	}
	f.assertNoSecrets(t, "stderr", stderr)
}

func TestSnapshotUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "-o", "xml"}, `unknown output format "xml" for "mvpctl snapshot": want one of yaml|json`},
		{[]string{"snapshot", "--concurrency", "0"}, "--concurrency must be at least 1"},
		{[]string{"snapshot", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"snapshot", "extra"}, `unknown command "extra"`},
		{[]string{"snapshot", "--server", "https://127.0.0.1:1", "--endpoint", "https://u:pw-secret@10.0.0.1"}, "--endpoint (URL with credentials): the URL holds credentials"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := run(t, tc.args...)
			if code != ExitError || stdout != "" {
				t.Errorf("exit %d stdout %q", code, stdout)
			}
			if !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "pw-secret") {
				t.Errorf("stderr %q, want %q", stderr, tc.want)
			}
		})
	}
}
