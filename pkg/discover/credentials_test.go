package discover

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
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
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: cfg, Endpoints: []string{"https://" + closedAddr(t)}}))
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

// TestLearnedCredentialsNeverLeak: credentials the kubeconfig does not hold as such — a basic
// auth pair (sent base64-encoded) and an exec plugin's token (known only once the plugin has
// run) — are learned from the requests themselves and redacted when a server quotes them; a
// plugin that hangs is bounded by --timeout and named.
func TestLearnedCredentialsNeverLeak(t *testing.T) {
	p := dt.NewPKI(t)
	const pluginToken = "exec-plugin-token-7d1e4b9c2a"
	dir := t.TempDir()
	script := func(name, body string) string {
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plugin := script("plugin", `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"`+pluginToken+`"}}'`+"\n")
	hung := script("hung", "sleep 6\n")
	exec := func(cmd string) *clientcmdapi.ExecConfig {
		return &clientcmdapi.ExecConfig{Command: cmd, APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
	}

	tests := []struct {
		name    string
		cfg     func(host string) *rest.Config
		secrets []string
		want    string // in the server's recorded error
	}{
		{"basic auth", func(host string) *rest.Config {
			return &rest.Config{Host: host, Username: "admin", Password: "s3cret-basic-password", TLSClientConfig: rest.TLSClientConfig{CAData: p.CAPEM}}
		}, []string{"s3cret-basic-password", base64.StdEncoding.EncodeToString([]byte("admin:s3cret-basic-password"))}, "denied for Basic [REDACTED]"},
		{"exec plugin", func(host string) *rest.Config {
			return &rest.Config{Host: host, ExecProvider: exec(plugin), TLSClientConfig: rest.TLSClientConfig{CAData: p.CAPEM}}
		}, []string{pluginToken}, "denied for Bearer [REDACTED]"},
		{"hung exec plugin", func(host string) *rest.Config {
			return &rest.Config{Host: host, ExecProvider: exec(hung), TLSClientConfig: rest.TLSClientConfig{CAData: p.CAPEM}}
		}, nil, `credential plugin "` + hung + `" did not finish within 2s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			echo := &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
			echo.Override = map[string]http.HandlerFunc{"/version": func(w http.ResponseWriter, r *http.Request) {
				// A misbehaving proxy that quotes the request's Authorization header.
				dt.WriteStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, "denied for "+r.Header.Get("Authorization"))
			}}
			echo.Start(t, p)
			var rec recorder
			start := time.Now()
			snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: tt.cfg(echo.URL()), Timeout: 2 * time.Second, NoLeaseServers: true}))
			// The hung plugin is waited for once (2s), not once per request.
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("took %s with a 2s timeout", took)
			}
			if err != nil {
				t.Fatal(err)
			}
			srv := snap.Servers[0]
			if srv.Reachable || !strings.Contains(srv.Error, tt.want) {
				t.Errorf("server error %q, want it to contain %q", srv.Error, tt.want)
			}
			out, err := snap.Marshal(false)
			if err != nil {
				t.Fatal(err)
			}
			all := string(out) + strings.Join(rec.progress, "\n") + strings.Join(rec.warnings, "\n") + FailureLine(&srv)
			for _, s := range tt.secrets {
				if strings.Contains(all, s) {
					t.Errorf("%q appears in the snapshot or the messages", s)
				}
			}
		})
	}
}
