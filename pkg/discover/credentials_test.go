package discover

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	dt "github.com/mvpctl/mvpctl/pkg/discover/discovertest"
)

// secretsOf lists what must never be printed: the token, and the client certificate and key
// as PEM and line by line.
func secretsOf(token string, pems ...[]byte) []string {
	out := []string{token}
	for _, p := range pems {
		out = append(out, string(p))
		for _, line := range strings.Split(string(p), "\n") {
			if len(line) > 20 && !strings.HasPrefix(line, "-----") {
				out = append(out, line)
			}
		}
	}
	return out
}

// TestCredentialsNeverLeak takes a snapshot with a bearer token and a client certificate,
// through servers that work, fail, and one that echoes the token back in an error, and checks
// that no credential appears in the snapshot (YAML and JSON), progress, warnings, failure
// lines or errors.
func TestCredentialsNeverLeak(t *testing.T) {
	p := dt.NewPKI(t)
	const token = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2VuLWZvci10ZXN0cw.sig"
	certPEM, keyPEM := p.ClientCert(t, "kubernetes-admin", "system:masters")
	secrets := secretsOf(token, certPEM, keyPEM)

	cluster := &dt.Cluster{CRDsJSON: dt.CRDsJSONFixture, APIServicesJSON: dt.APIServicesJSONFixture}
	good := (&dt.Server{Cluster: cluster, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Hooks: dt.Hooks136, Token: token}).Start(t, p)
	echo := &dt.Server{Cluster: cluster, GitVersion: "v1.35.4", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true), Token: token}
	echo.Override = map[string]http.HandlerFunc{"/apis": func(w http.ResponseWriter, r *http.Request) {
		// A misbehaving proxy that quotes the request's Authorization header.
		dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, "denied for "+r.Header.Get("Authorization"))
	}}
	echo.Start(t, p)
	cluster.Leases = []coordinationv1.Lease{
		dt.IdentityLease("apiserver-aaaaaaaaaaaaaaaaaaaaaaaaaa", "cp-a", good.Addr(), time.Now()),
		dt.IdentityLease("apiserver-eeeeeeeeeeeeeeeeeeeeeeeeee", "cp-e", echo.Addr(), time.Now()),
		dt.IdentityLease("apiserver-dddddddddddddddddddddddddd", "cp-d", closedAddr(t), time.Now()),
	}
	cfg := &rest.Config{Host: good.URL(), BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: p.CAPEM, CertData: certPEM, KeyData: keyPEM}}

	var rec recorder
	snap, err := Discover(context.Background(), rec.opts(Options{Config: cfg, Endpoints: []string{"https://" + closedAddr(t)}}))
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Find("cp-a").Reachable || snap.Find("cp-e").Reachable || !strings.Contains(snap.Find("cp-e").Error, "denied for Bearer [REDACTED]") {
		t.Fatalf("cp-a %+v\ncp-e %+v", snap.Find("cp-a"), snap.Find("cp-e"))
	}
	yamlBytes, err := snap.Marshal(false)
	if err != nil {
		t.Fatal(err)
	}
	jsonBytes, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := range snap.Servers {
		if !snap.Servers[i].Reachable {
			lines = append(lines, FailureLine(&snap.Servers[i]))
		}
	}
	// An error return path too: an unknown context.
	_, ctxErr := Discover(context.Background(), Options{Config: cfg, Contexts: []string{"missing"}, ContextConfig: func(string) (*rest.Config, error) {
		return nil, errString("exec plugin said: " + token)
	}})
	if ctxErr == nil {
		t.Fatal("no error for a failing context")
	}
	outputs := map[string]string{
		"snapshot YAML": string(yamlBytes),
		"snapshot JSON": string(jsonBytes),
		"progress":      strings.Join(rec.progress, "\n"),
		"warnings":      strings.Join(rec.warnings, "\n"),
		"failure lines": strings.Join(lines, "\n"),
		"error":         ctxErr.Error(),
	}
	for where, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s contains a credential (%.30q…)", where, s)
			}
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
