//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// escapeCases are the rows of docs/faults.md where text from outside — an audit log, a
// snapshot, a baseline, a flag, a manifest, a server — is hostile: it prints as text, never
// acts on the terminal or the pull-request comment, and never stops an inspection.
func escapeCases() []processCase {
	example, _ := filepath.Abs("../../examples/skew.yaml")
	fromExample := func(t *testing.T, name string, edit func(string) string) string {
		data, err := os.ReadFile(example)
		if err != nil {
			t.Fatal(err)
		}
		return writeTestFile(t, t.TempDir(), name, edit(string(data)))
	}
	hostileAudit := func(t *testing.T) string {
		data, err := os.ReadFile("testdata/audit-kas-a.log")
		if err != nil {
			t.Fatal(err)
		}
		agent := `kubectl/v1.36.3 \u001b]0;pwned\u0007\u001b[2J<img src=x onerror=alert(1)>`
		return writeTestFile(t, t.TempDir(), "audit.log", strings.NewReplacer(`"userAgent":"kubectl/v1.36.3"`, `"userAgent":"`+agent+`"`,
			"/apis/batch/v1/namespaces/default/jobs", "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims").Replace(string(data)))
	}
	noEscape := func(t *testing.T, r processResult) {
		t.Helper()
		if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
			t.Errorf("an escape sequence reached the terminal:\n%q\n%q", r.stdout, r.stderr)
		}
	}
	noHTML := func(t *testing.T, r processResult) {
		t.Helper()
		noEscape(t, r)
		if strings.Contains(r.stdout, "<img") || strings.Contains(r.stdout, "<script") || strings.Contains(r.stdout, "</td>") {
			t.Errorf("HTML reached the markdown:\n%s", r.stdout)
		}
	}
	stderrHas := func(want string) func(t *testing.T, r processResult) {
		return func(t *testing.T, r processResult) {
			noEscape(t, r)
			if n := strings.Count(r.stderr, "error: "); n != 1 || !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q: want one error line with %q", r.stderr, want)
			}
		}
	}
	offline := func(fault, command string, exit int, args func(t *testing.T, dir string) []string, check func(*testing.T, processResult)) processCase {
		return processCase{fault: fault, command: command, exit: exit, within: 3 * time.Second, check: check,
			setup: func(t *testing.T, dir string) processRun { return processRun{args: args(t, dir), dir: dir} }}
	}
	echoServer := func(t *testing.T, body string) string {
		h := func(w http.ResponseWriter, r *http.Request) {
			token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			// The message quotes the token in part, or escaped: its backslashes are escaped
			// once more, so that the decoded message holds them.
			msg := fmt.Sprintf(body, token[:12], strings.ReplaceAll(jsonEscapeAll(token), `\`, `\\`))
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"%s","reason":"Forbidden","code":403}`, msg)
		}
		kc := filepath.Join(t.TempDir(), "kubeconfig")
		content := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: " + tlsCluster(t, h, false, "") + "\n  name: c\nusers:\n- name: u\n  user: {token: " + faultToken + "}\ncontexts:\n- context: {cluster: c, user: u}\n  name: ctx\ncurrent-context: ctx\n"
		if err := os.WriteFile(kc, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return kc
	}
	noTokenPart := func(t *testing.T, r processResult) {
		if strings.Contains(r.stderr, faultToken[:12]) || strings.Contains(r.stderr, jsonEscapeAll(faultToken)) {
			t.Errorf("stderr shows the token, in part or escaped: %q", r.stderr)
		}
	}
	return []processCase{
		offline("audit log: a User-Agent holding `ESC ]0;…BEL` and `ESC[2J`", "simulate upgrade --to 1.37 --audit-log audit.log", ExitOK,
			func(t *testing.T, _ string) []string {
				return []string{"simulate", "upgrade", "--snapshot", example, "--to", "1.37", "--audit-log", hostileAudit(t)}
			}, func(t *testing.T, r processResult) {
				noEscape(t, r)
				if !strings.Contains(r.stdout, `kubectl/v1.36.3 \x1b]0;pwned\x07\x1b[2J`) {
					t.Errorf("the client is not shown, escaped:\n%s", r.stdout)
				}
			}),
		offline("audit log: a User-Agent holding `<img onerror>`", "preflight --to 1.37 --audit-log audit.log -o markdown", ExitFindings,
			func(t *testing.T, _ string) []string {
				return []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--audit-log", hostileAudit(t), "-o", "markdown"}
			}, noHTML),
		offline("snapshot: a server named `kas-b</td><script>`", "preflight --to 1.37 -o markdown", ExitFindings,
			func(t *testing.T, _ string) []string {
				snap := fromExample(t, "renamed.yaml", func(s string) string { return strings.ReplaceAll(s, "kas-b", "kas-b</td><script>") })
				return []string{"preflight", "--snapshot", snap, "--to", "1.37", "--no-baseline", "-o", "markdown"}
			}, noHTML),
		offline("snapshot: servers kas-a and kas.a", "routes -o dot", ExitOK,
			func(t *testing.T, _ string) []string {
				snap := fromExample(t, "dotted.yaml", func(s string) string { return strings.ReplaceAll(s, "kas-b", "kas.a") })
				return []string{"routes", "--snapshot", snap, "-o", "dot"}
			}, func(t *testing.T, r processResult) {
				if !strings.Contains(r.stdout, `label="kas-a`) || !strings.Contains(r.stdout, `label="kas.a`) {
					t.Errorf("kas-a and kas.a are not two nodes:\n%s", r.stdout)
				}
			}),
		offline(".mvpctl-ignore: a reason comment holding escape sequences", "preflight --to 1.37", ExitOK,
			func(t *testing.T, dir string) []string {
				writeTestFile(t, dir, ".mvpctl-ignore", "MVP011  # 2026-11-27 \x1b]0;pwned\x07\x1b[2J only kas-b serves it\n")
				return []string{"preflight", "--snapshot", example, "--to", "1.37"}
			}, noEscape),
		offline("--baseline: a rule holding a NUL byte", "preflight --to 1.37 --baseline FILE", ExitError,
			func(t *testing.T, _ string) []string {
				return []string{"preflight", "--snapshot", example, "--to", "1.37", "--baseline", writeTestFile(t, t.TempDir(), "baseline", "MVP011:k\x00z\n")}
			}, stderrHas(":1: holds a NUL byte")),
		offline("--ignore: a rule holding escape sequences", "preflight --to 1.37 --ignore RULE", ExitError,
			func(t *testing.T, _ string) []string {
				return []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--ignore", "MVP011:\x1b]0;pwned\x07"}
			}, stderrHas("holds the control character")),
		offline("--static-pod-manifest: a container name holding escape sequences", "snapshot --static-pod-manifest kas-a=FILE", ExitError,
			func(t *testing.T, _ string) []string {
				pod := writeTestFile(t, t.TempDir(), "pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: \"x\\e]0;pwned\\a\\e[2J\"\n    command: [etcd]\n")
				return []string{"snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", "kas-a=" + pod}
			}, stderrHas(`containers: x\x1b]0;pwned\x07\x1b[2J`)),
		{fault: "server: a lease hostname holding escape sequences", command: "routes --timeout 10s", exit: ExitOK, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				a := &pt.Server{Name: "cp-a\x1b]0;pwned\x07", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
				b := &pt.Server{Name: "cp-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
				c := pt.Start(t, a, b)
				return processRun{args: []string{"routes", "--kubeconfig", c.Kubeconfig(t), "--timeout", "10s"}, dir: dir}
			},
			check: func(t *testing.T, r processResult) {
				noEscape(t, r)
				if strings.Contains(r.stderr, "internal error") || !strings.Contains(r.stdout, `cp-a\x1b]0;pwned\x07`) {
					t.Errorf("want the server listed, escaped, and no internal error:\n%s\n%s", r.stdout, r.stderr)
				}
			}},
		{fault: "server: a lease's peer-advertise address holding `ESC[31m`, line breaks and a zero-width joiner", command: "routes --timeout 10s", exit: ExitIncomplete, within: 3 * time.Second,
			setup: forgedAddress("routes"), check: oneLinePerValue},
		{fault: "server: a lease's peer-advertise address holding `ESC[31m`, line breaks and a zero-width joiner", command: "snapshot -f FILE --timeout 10s", exit: ExitIncomplete, within: 3 * time.Second,
			setup: forgedAddress("snapshot", "-f", "snap.yaml"), check: oneLinePerValue},
		{fault: "server: echoes the token's first 12 characters", command: "routes --timeout 10s", exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				return processRun{args: []string{"routes", "--kubeconfig", echoServer(t, "invalid bearer token %s…%.0s"), "--timeout", "10s"}, dir: dir}
			}, check: noTokenPart},
		{fault: "server: echoes the token JSON-escaped", command: "routes --timeout 10s", exit: ExitError, within: 3 * time.Second,
			setup: func(t *testing.T, dir string) processRun {
				return processRun{args: []string{"routes", "--kubeconfig", echoServer(t, `denied%.0s for token %s`), "--timeout", "10s"}, dir: dir}
			}, check: noTokenPart},
	}
}

// jsonEscapeAll writes every character of s as a \u escape, as a JSON encoder may.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// forgedAddress serves two apiservers and a third identity lease whose peer-advertise address
// would colour the terminal and forge lines of its own; args are the command's.
func forgedAddress(args ...string) func(t *testing.T, dir string) processRun {
	return func(t *testing.T, dir string) processRun {
		a := &pt.Server{Name: "cp-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(true)}
		b := &pt.Server{Name: "cp-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: pt.Groups136(false)}
		c := pt.Start(t, a, b)
		shared := a.Fake.Cluster
		shared.Leases = append(shared.Leases, dt.IdentityLease("apiserver-forged", "cp-forged", "\x1b[31m"+hostileLine, time.Now()))
		return processRun{args: append(args, "--kubeconfig", c.Kubeconfig(t), "--timeout", "10s"), dir: dir}
	}
}

// oneLinePerValue fails when a value from outside started a line of its own, or printed an
// escape sequence or an invisible character as it is, on stdout or stderr.
func oneLinePerValue(t *testing.T, r processResult) {
	t.Helper()
	checkHostileOutput(t, "table", "stdout", r.stdout)
	checkHostileOutput(t, "table", "stderr", r.stderr)
	if !strings.Contains(r.stdout+r.stderr, `\x0d\x0aFAKE-LINE`) {
		t.Errorf("the address is not shown, escaped:\n%s\n%s", r.stdout, r.stderr)
	}
}
