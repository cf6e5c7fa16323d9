package main

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// faultToken is planted in every kubeconfig of TestFaults; servers that misbehave echo it.
const faultToken = "fault-suite-token-a9c3e1f07b"

// fault is a server that answers wrongly in one way, and what mvpctl must say about it.
type fault struct {
	name string
	// start returns the kubeconfig cluster entry (server and CA) for the faulty server.
	start func(t *testing.T) string
	want  string // in the one error line
}

// tlsCluster starts h on a TLS server and returns its kubeconfig cluster entry, with the CA
// unless untrusted, at host (127.0.0.1 unless given).
func tlsCluster(t *testing.T, h http.HandlerFunc, untrusted bool, host string) string {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	url := srv.URL
	if host != "" {
		url = strings.Replace(url, "127.0.0.1", host, 1)
	}
	entry := fmt.Sprintf("{server: %q", url)
	if !untrusted {
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		entry += ", certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca)
	}
	return entry + "}"
}

func faults() []fault {
	echo := func(code int, ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(code)
			fmt.Fprintf(w, body, r.Header.Get("Authorization"))
		}
	}
	status := func(code int, reason string) http.HandlerFunc {
		return echo(code, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"denied for %s \u001b[2J","reason":"`+reason+`","code":`+fmt.Sprint(code)+`}`)
	}
	return []fault{
		{"html from a load balancer", func(t *testing.T) string {
			return tlsCluster(t, echo(200, "text/html", "<html><head><title>Sign in \x1b]0;pwned\x07 %s</title></head></html>"), false, "")
		}, "got an HTML page"},
		{"401", func(t *testing.T) string { return tlsCluster(t, status(401, "Unauthorized"), false, "") }, "401 Unauthorized"},
		{"403 echoing the token", func(t *testing.T) string { return tlsCluster(t, status(403, "Forbidden"), false, "") }, "403 Forbidden: denied for Bearer [REDACTED]"},
		{"500", func(t *testing.T) string { return tlsCluster(t, status(500, "InternalError"), false, "") }, "HTTP 500 Internal Server Error"},
		{"redirect to a login page", func(t *testing.T) string {
			return tlsCluster(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://login.example.com/sso?token="+faultToken, http.StatusFound)
			}, false, "")
		}, "HTTP 302 redirect to https://login.example.com/sso"},
		{"unknown certificate authority", func(t *testing.T) string { return tlsCluster(t, status(200, ""), true, "") }, "certificate signed by unknown authority"},
		{"certificate for another name", func(t *testing.T) string { return tlsCluster(t, status(200, ""), false, "localhost") }, "not valid for"},
		{"truncated JSON", func(t *testing.T) string {
			return tlsCluster(t, echo(200, "application/json", `{"major":"1","minor":"36","gitVersion":"v1.36.3`+"%.0s"), false, "")
		}, "truncated"},
		{"not JSON", func(t *testing.T) string { return tlsCluster(t, echo(200, "text/plain", "hello %.0s"), false, "") }, `Content-Type "text/plain"`},
		{"plain HTTP behind https", func(t *testing.T) string {
			srv := httptest.NewServer(status(200, ""))
			t.Cleanup(srv.Close)
			return fmt.Sprintf("{server: %q}", strings.Replace(srv.URL, "http://", "https://", 1))
		}, "does not speak HTTPS"},
		{"hung server", func(t *testing.T) string {
			return fmt.Sprintf("{server: %q}", "https://"+hungServer(t).Addr().String())
		}, "no answer within 1s"},
		{"nothing listens", func(t *testing.T) string { return `{server: "https://127.0.0.1:1"}` }, "connection refused"},
	}
}

// TestFaults runs every command that reads a cluster against every fault: each exits 1 with
// one error line naming the cause, prints nothing on stdout, writes no file, takes at most a
// few timeouts, and never shows the token (nor a terminal escape sequence from the server).
func TestFaults(t *testing.T) {
	commands := [][]string{
		{"snapshot"}, {"routes"}, {"explain", "GET", "/api/v1/pods"}, {"discovery", "diff"},
		{"simulate", "upgrade", "--to", "1.37"}, {"preflight", "--to", "1.37"}, {"probe"}, {"traffic"}, {"watch"},
	}
	for _, f := range faults() {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			kc := filepath.Join(dir, "kubeconfig")
			content := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: " + f.start(t) + "\n  name: c\nusers:\n- name: u\n  user: {token: " + faultToken + "}\ncontexts:\n- context: {cluster: c, user: u}\n  name: ctx\ncurrent-context: ctx\n"
			if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("KUBECONFIG", kc)
			for _, args := range commands {
				t.Run(args[0], func(t *testing.T) {
					out := filepath.Join(dir, "out.yaml")
					full := append(append([]string{}, args...), "--timeout", "1s")
					if args[0] == "snapshot" {
						full = append(full, "-f", out)
					}
					start := time.Now()
					stdout, stderr, code := run(t, full...)
					if took := time.Since(start); took > 5*time.Second {
						t.Errorf("took %s with --timeout 1s", took)
					}
					var errLines []string
					for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
						if strings.HasPrefix(l, "error: ") {
							errLines = append(errLines, l)
						}
					}
					if code != ExitError || len(errLines) != 1 || !strings.Contains(errLines[0], f.want) {
						t.Errorf("exit %d, stderr %q: want exit 1 and one error line with %q", code, stderr, f.want)
					}
					if stdout != "" {
						t.Errorf("stdout %q on an error", stdout)
					}
					if _, err := os.Stat(out); err == nil {
						t.Error("snapshot wrote a file although nothing could be read")
					}
					for _, bad := range []string{faultToken, "\x1b", "\x07"} {
						if strings.Contains(stdout+stderr, bad) {
							t.Errorf("output contains %q: %q", bad, stderr)
						}
					}
				})
			}
		})
	}
}

// TestRequestTimeoutWording: a request cut by --request-timeout says so, not --timeout.
func TestRequestTimeoutWording(t *testing.T) {
	ln := hungServer(t)
	start := time.Now()
	_, stderr, code := run(t, "routes", "--server", "https://"+ln.Addr().String(), "--insecure-skip-tls-verify", "--timeout", "30s", "--request-timeout", "1s")
	if code != ExitError || !strings.Contains(stderr, "no answer within 1s (--request-timeout") || strings.Contains(stderr, "30s") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
}

// hungListener is a hungServer; connected is closed when it accepts its first connection.
type hungListener struct {
	net.Listener
	connected chan struct{}
}

// hungServer listens on loopback, accepts connections and never answers, until the test ends.
func hungServer(t *testing.T) hungListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	connected := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			if len(conns) == 0 {
				close(connected)
			}
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return hungListener{Listener: ln, connected: connected}
}
