package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// Text others control, as the fault sweep planted it: escape sequences that retitle the
// terminal (OSC 0 … BEL) and clear it (CSI 2J), a bidi override, and HTML that a
// pull-request comment would run.
const (
	hostileTitle  = "\x1b]0;pwned\x07"
	hostileClear  = "\x1b[2J"
	hostileBidi   = "\u202eevil"
	hostileImg    = "<img src=x onerror=alert(1)>"
	hostileScript = "</td><script>alert(1)</script>"
	hostileText   = hostileTitle + hostileClear + hostileBidi + hostileImg + hostileScript
	// hostileLine would forge a line of its own (a newline, CR, the next-line character, the
	// line and paragraph separators) and join what is read (a zero-width joiner): a value
	// that holds it must stay on its line, every one of them shown.
	hostileLine = "\r\nFAKE-LINE: all good\u0085\u2028\u2029gad\u200dgets"
)

// lineBreaks are the characters of hostileLine that no terminal format may print as they are.
var lineBreaks = []string{"\r", "\u0085", "\u2028", "\u2029", "\u200d"}

// checkHostileOutput fails when a planted string got through as it is: a control character
// anywhere (JSON and YAML escape them; everything else makes them visible), HTML in
// markdown or JUnit.
func checkHostileOutput(t *testing.T, format, stream, got string) {
	t.Helper()
	for _, raw := range []string{"\x1b", "\x07", "\u202e"} {
		if raw == "\u202e" && (format == "json" || format == "yaml") && stream == "stdout" {
			continue // a printable character to JSON and YAML, which keep the exact value
		}
		if strings.Contains(got, raw) {
			t.Errorf("-o %s: %s holds %q as it is:\n%s", format, stream, raw, got)
		}
	}
	if stream != "stdout" || (format != "json" && format != "yaml") {
		for _, raw := range lineBreaks {
			if strings.Contains(got, raw) {
				t.Errorf("-o %s: %s holds %q as it is:\n%s", format, stream, raw, got)
			}
		}
		for _, line := range strings.Split(got, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "FAKE-LINE") {
				t.Errorf("-o %s: %s has a line of its own from a value: %q\n%s", format, stream, line, got)
			}
			// Nor one that a renderer draws: a markdown or Mermaid <br>, a DOT \n. The
			// newline before FAKE-LINE is written \x0a, wherever it is placed.
			for rest := line; ; {
				i := strings.Index(rest, "FAKE-LINE")
				if i < 0 {
					break
				}
				if !strings.HasSuffix(rest[:i], "x0a") {
					t.Errorf("-o %s: %s breaks the line before a value's FAKE-LINE: %q", format, stream, line)
				}
				rest = rest[i+1:]
			}
		}
	}
	if stream != "stdout" {
		return
	}
	switch format {
	case "markdown", "junit", "mermaid", "dot":
		for _, html := range []string{"<img", "<script", "</td>"} {
			if strings.Contains(got, html) {
				t.Errorf("-o %s: %q as HTML:\n%s", format, html, got)
			}
		}
	}
}

// formatsOf lists the -o values of command, jsonpath with a template.
func formatsOf(t *testing.T, command string) []string {
	t.Helper()
	for _, f := range outputFlags() {
		if f.command == command {
			var out []string
			for _, form := range f.formats {
				if form == "jsonpath=TEMPLATE" {
					form = "jsonpath={.apiVersion}"
				}
				out = append(out, form)
			}
			return out
		}
	}
	t.Fatalf("no command %q with -o", command)
	return nil
}

func writeTestFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostileStringsEverywhere plants the hostile strings in every source of text from
// outside that the offline commands print — an audit log's User-Agent, a server's name, a
// baseline's reason comments, an --ignore rule, a --static-pod-manifest file's container name — and
// runs each command in every format it has: no escape sequence reaches stdout or stderr, no
// HTML reaches markdown or JUnit, and the planted text is still shown, escaped.
func TestHostileStringsEverywhere(t *testing.T) {
	dir := t.TempDir()
	const example = "../../examples/skew.yaml"
	jsonText := strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`, `"`, `\"`).Replace(hostileText)
	jsonLine := strings.NewReplacer("\r", `\r`, "\n", `\n`, "\u0085", `\u0085`).Replace(hostileLine)
	audit, err := os.ReadFile("testdata/audit-kas-a.log")
	if err != nil {
		t.Fatal(err)
	}
	// The requests are made for a GVR the upgrade puts at risk: only their clients are shown.
	auditLog := writeTestFile(t, dir, "audit.log", strings.NewReplacer(`"userAgent":"kubectl/v1.36.3"`, `"userAgent":"kubectl/v1.36.3 `+jsonText+jsonLine+`"`,
		"/apis/batch/v1/namespaces/default/jobs", "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims").Replace(string(audit)))
	skew, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	renamed := writeTestFile(t, dir, "renamed.yaml", strings.ReplaceAll(string(skew), "kas-b", "kas-b</td><script>"))
	baseline := writeTestFile(t, dir, "baseline", "MVP011  # 2026-11-27 "+hostileText+"\n")
	// An APIService's Available message, as an aggregated server's condition says it (a
	// snapshot holds newlines, separators and format characters as they are).
	aggregatedSnap, err := os.ReadFile(aggregated)
	if err != nil {
		t.Fatal(err)
	}
	yamlLine := strings.NewReplacer("\r", "", "\n", `\n`, "\u0085", "").Replace(hostileLine)
	message := writeTestFile(t, dir, "message.yaml", strings.Replace(string(aggregatedSnap),
		`message: 'failing or missing response from https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1: Get "https://10.96.0.12:443/apis/metrics.k8s.io/v1beta1": dial tcp 10.96.0.12:443: connect: connection refused'`,
		`message: "failing or missing response`+yamlLine+`"`, 1))
	// A lease's peer-advertise address (the address a peer is proxied to) holding line breaks.
	address := writeTestFile(t, dir, "address.yaml", strings.Replace(string(skew), "  peerAdvertiseAddress: 127.0.0.1:38225\n",
		"  peerAdvertiseAddress: \"127.0.0.1:38225"+yamlLine+"\"\n", 1))
	// A manifest file whose name would forge a line: it names the client of each object in it.
	manifests := filepath.Join(dir, "manifests")
	if err := os.Mkdir(manifests, 0o700); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, manifests, "claims"+hostileClear+"<br>"+hostileLine+".yaml", "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n")
	// A CRD's deprecationWarning, quoted in the finding of an object of the version it deprecates.
	crds := writeTestFile(t, dir, "crds.yaml", strings.Replace(string(skew), "cluster:\n", "cluster:\n  customResourceDefinitions:\n  - group: networking.k8s.io\n    kind: Ingress\n    plural: ingresses\n    versions:\n    - name: v1\n      served: true\n      deprecated: true\n      deprecationWarning: \"use v2"+yamlLine+"\"\n", 1))
	ingress := writeTestFile(t, dir, "ingress.yaml", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\n")
	manifest := writeTestFile(t, dir, "pod.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: \""+jsonText+"\"\n    command: [etcd]\n")

	tests := []struct {
		source  string
		command string
		args    []string
		shown   string // in stdout or stderr of -o table, escaped
	}{
		{"audit log User-Agent", "mvpctl simulate upgrade", []string{"simulate", "upgrade", "--snapshot", example, "--to", "1.37", "--audit-log", auditLog}, `\x1b]0;pwned\x07`},
		{"audit log User-Agent", "mvpctl preflight", []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--audit-log", auditLog}, `\x1b]0;pwned\x07`},
		{"server name", "mvpctl preflight", []string{"preflight", "--snapshot", renamed, "--to", "1.37", "--no-baseline"}, "kas-b</td><script>"},
		{"server name", "mvpctl routes", []string{"routes", "--snapshot", renamed}, "kas-b</td><script>"},
		{"server name", "mvpctl explain", []string{"explain", "--snapshot", renamed, "jobs"}, "kas-b</td><script>"},
		{"baseline reason", "mvpctl preflight", []string{"preflight", "--snapshot", example, "--to", "1.37", "--baseline", baseline}, `\x1b]0;pwned\x07`},
		{"--ignore rule", "mvpctl preflight", []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--ignore", "MVP011:" + hostileText}, `\x1b]0;pwned\a`},
		{"APIService message", "mvpctl explain", []string{"explain", "--snapshot", message, "GET", "/apis/metrics.k8s.io/v1beta1/nodes"}, `\x0aFAKE-LINE: all good\u2028\u2029gad\u200dgets`},
		{"APIService message", "mvpctl explain", []string{"explain", "--snapshot", message, "--verbose", "--why-not", "GET", "/apis/metrics.k8s.io/v1beta1/nodes"}, `\x0aFAKE-LINE`},
		{"APIService message", "mvpctl routes", []string{"routes", "--snapshot", message, "--all"}, ""},
		{"APIService message", "mvpctl preflight", []string{"preflight", "--snapshot", message, "--to", "1.37", "--no-baseline"}, ""},
		{"audit log User-Agent", "mvpctl simulate upgrade", []string{"simulate", "upgrade", "--snapshot", example, "--to", "1.37", "--audit-log", auditLog}, `\x0d\x0aFAKE-LINE: all good\x85\u2028\u2029gad\u200dgets`},
		{"lease address", "mvpctl explain", []string{"explain", "--snapshot", address, "GET", "/apis/batch/v1/jobs"}, ""},
		{"manifest file name", "mvpctl preflight", []string{"preflight", "--snapshot", example, "--to", "1.37", "--no-baseline", "--manifests", manifests}, `\x0aFAKE-LINE`},
		{"CRD deprecationWarning", "mvpctl preflight", []string{"preflight", "--snapshot", crds, "--to", "1.37", "--no-baseline", "--manifests", ingress}, `use v2\x0aFAKE-LINE: all good\u2028\u2029gad\u200dgets`},
		{"--static-pod-manifest container name", "mvpctl snapshot", []string{"snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", "kas-a=" + manifest}, `\x1b]0;pwned\a`},
	}
	for _, tt := range tests {
		for _, form := range formatsOf(t, tt.command) {
			t.Run(tt.source+"/"+tt.command+" -o "+form, func(t *testing.T) {
				stdout, stderr, _ := run(t, append(slices.Clone(tt.args), "-o", form)...)
				checkHostileOutput(t, form, "stdout", stdout)
				checkHostileOutput(t, form, "stderr", stderr)
				if form == "table" && !strings.Contains(stdout+stderr, tt.shown) {
					t.Errorf("the planted text is not shown as %q:\n%s\n%s", tt.shown, stdout, stderr)
				}
			})
		}
	}
}

// TestHostileLeaseAddressDrawn: the address a peer is proxied to is drawn in explain's
// diagrams (the table has no column for it), escaped on its label's line.
func TestHostileLeaseAddressDrawn(t *testing.T) {
	skew, err := os.ReadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yamlLine := strings.NewReplacer("\r", "", "\n", `\n`, "\u0085", "").Replace(hostileLine)
	address := writeTestFile(t, t.TempDir(), "address.yaml", strings.Replace(string(skew), "  peerAdvertiseAddress: 127.0.0.1:38225\n",
		"  peerAdvertiseAddress: \"127.0.0.1:38225<br>"+yamlLine+"\"\n", 1))
	for form, want := range map[string]string{"dot": `127.0.0.1:38225&lt;br&gt;\\x0aFAKE-LINE`, "mermaid": `127.0.0.1:38225#lt;br#gt;\x0aFAKE-LINE`} {
		stdout, stderr, _ := run(t, "explain", "--snapshot", address, "GET", "/apis/batch/v1/jobs", "-o", form)
		checkHostileOutput(t, form, "stdout", stdout)
		if !strings.Contains(stdout, want) {
			t.Errorf("-o %s: the address is not drawn as %q:\n%s\n%s", form, want, stdout, stderr)
		}
	}
}

// TestHostileStringsLive plants the hostile strings in what the live commands read and print
// as lines or tables: /metrics label values (traffic, watch) and an identity lease's name,
// holder and hostname (watch).
func TestHostileStringsLive(t *testing.T) {
	from := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	rep := &proxytraffic.Report{APIVersion: "mvpctl.io/v1alpha1", Kind: "ProxyTraffic", From: from, To: from.Add(10 * time.Second),
		Servers: []proxytraffic.Server{{Name: "kas-b" + hostileText, Version: "v1.36.3", Read: true, ByGVR: true, ProxiedTotal: 3,
			Proxied: []proxytraffic.Count{{GVR: "batch/v1/" + hostileText + hostileLine, Code: hostileTitle + hostileLine, Count: 3}}}}}
	for _, form := range formatsOf(t, "mvpctl traffic") {
		t.Run("traffic -o "+form, func(t *testing.T) {
			var b bytes.Buffer
			format := output.Format(form)
			opts := output.Options{Format: format}
			if strings.HasPrefix(form, "jsonpath=") {
				opts = output.Options{Format: output.FormatJSONPath, JSONPath: strings.TrimPrefix(form, "jsonpath=")}
			}
			if err := output.Write(&b, render.Traffic{Report: rep}, opts); err != nil {
				t.Fatal(err)
			}
			checkHostileOutput(t, form, "stdout", b.String())
		})
	}
	at := time.Date(2026, 11, 24, 10, 0, 4, 0, time.UTC)
	events := []watch.Event{
		{Type: watch.LeaseAdded, Server: "kas-a" + hostileText, Lease: "apiserver-x" + hostileText, To: "apiserver-x_" + hostileText},
		{Type: watch.LeaseNewHolder, Server: "kas-a", Lease: "apiserver-x", From: "a", To: hostileText},
		{Type: watch.Proxied, Server: "kas-b", GVR: "batch/v1/" + hostileText, Traffic: &watch.Traffic{Code: hostileTitle, Count: 5}},
		{Type: watch.ProxyErrors, Server: "kas-b", GVR: "batch/v1/jobs", Traffic: &watch.Traffic{Type: hostileText, Count: 2}},
		// A counter's group label, an APIService's Available message, a lease's address, an
		// error: each holding line breaks.
		{Type: watch.Proxied, Server: "kas-b", GVR: "batch" + hostileLine + "/v1/jobs", Traffic: &watch.Traffic{Code: "200" + hostileLine, Count: 5}},
		{Type: watch.APIServiceUnavailable, APIService: "v1beta1.metrics.k8s.io" + hostileLine, From: "True", To: "False FailedDiscoveryCheck: refused" + hostileLine},
		{Type: watch.APIServiceAvailable, APIService: "v1beta1.metrics.k8s.io", From: "False" + hostileLine, To: "True"},
		{Type: watch.LeaseAddressChanged, Server: "kas-a", Lease: "apiserver-x", From: "10.0.0.1:6443", To: "\x1b[31m" + hostileLine},
		{Type: watch.ServerDown, Server: "kas-a" + hostileLine},
		{Type: watch.WindowOpened, Server: "kas-a", GVR: "batch/v1/jobs" + hostileLine, Window: &watch.Window{Outcome: mvp.NotFound, ServedBy: []string{"kas-b" + hostileLine}}},
	}
	for _, e := range events {
		for _, format := range []output.Format{output.FormatText, output.FormatJSON} {
			t.Run("watch "+string(e.Type)+" -o "+string(format), func(t *testing.T) {
				e.Time = at
				var b bytes.Buffer
				l := render.Event{Doc: watch.NewEventDoc(e, "v1.36.3", hostileClear+hostileLine), Loc: time.UTC}
				if err := output.WriteLine(&b, l, output.Options{Format: format}); err != nil {
					t.Fatal(err)
				}
				checkHostileOutput(t, string(format), "stdout", b.String())
			})
		}
	}
}
