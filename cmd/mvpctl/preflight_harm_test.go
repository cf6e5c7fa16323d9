package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// preflightSummary is what the harm tests read of `preflight -o json`.
type preflightSummary struct {
	Findings []struct{ Check, Severity, Subject, Message string }
	Summary  struct{ Blocking, Warning int }
}

func preflightJSON(t *testing.T, args ...string) (preflightSummary, int) {
	t.Helper()
	out, errOut, code := run(t, append(append([]string{"preflight"}, args...), "-o", "json")...)
	var rep preflightSummary
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %v; stderr %s", args, err, errOut)
	}
	return rep, code
}

// auditLine is one audit event of a request that user agent made.
func auditLine(id, agent, uri string) string {
	return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":%q,"stage":"ResponseComplete","requestURI":%q,"verb":"list","userAgent":%q,"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-23T10:00:0%sZ"}`+"\n",
		id, uri, agent, id)
}

// runtimeConfigPlane writes a snapshot of three default 1.36 apiservers (the embedded
// profiles) of which a also serves networking.k8s.io/v1beta1, as
// --runtime-config=networking.k8s.io/v1beta1=true makes it; 1.37 has no such group/version.
func runtimeConfigPlane(t *testing.T) string {
	t.Helper()
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}, {Name: "c", Version: "1.36"}}, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Lookup("1.36")
	if err != nil {
		t.Fatal(err)
	}
	a := start.Find("a")
	for _, r := range p.Full {
		if r.Group == "networking.k8s.io" && r.Version == "v1beta1" {
			a.Resources = append(a.Resources, r)
		}
	}
	if c := simulate.InferRuntimeConfig(a); c.RuntimeConfig != "networking.k8s.io/v1beta1=true" {
		t.Fatalf("plane's server a infers --runtime-config %q", c.RuntimeConfig)
	}
	path := filepath.Join(t.TempDir(), "plane.yaml")
	if err := start.WriteFile(path, false); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPreflightSeverityByHarm: blocking means a request that works before the upgrade fails at
// some step, or may: a default plane whose only windows are for GVRs new in the target warns;
// a --runtime-config group/version the target removes blocks unless the replayed traffic
// shows no client of it, and blocks naming the client when it shows one; a replayed request
// for a GVR new in the target that meets a server not yet upgraded blocks.
func TestPreflightSeverityByHarm(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plane := runtimeConfigPlane(t)
	noClient := write("no-client.log", auditLine("1", "kubectl/v1.36.3", "/api/v1/namespaces/default/pods")+auditLine("2", "kubectl/v1.36.3", "/apis/apps/v1/deployments"))
	client := write("client.log", auditLine("1", "kubectl/v1.36.3", "/api/v1/namespaces/default/pods")+auditLine("2", "ipam-controller/v0.3", "/apis/networking.k8s.io/v1beta1/ipaddresses"))
	newGVR := write("new.log", auditLine("1", "trust-manager/v0.9", "/apis/certificates.k8s.io/v1/clustertrustbundles"))
	for _, tc := range []struct {
		name string
		args []string
		code int
		// want are findings check:subject=severity, and says text some finding's message holds.
		want []string
		says string
	}{
		{"default plane 1.35 → 1.36: the GVRs new in 1.36 warn", []string{"--servers", "a=1.35,b=1.35,c=1.35", "--to", "1.36"}, ExitIncomplete,
			[]string{"MVP010:admissionregistration.k8s.io/v1/mutatingadmissionpolicies=warning"}, "new: no apiserver serves it at the start"},
		{"default plane 1.36 → 1.37: the GVRs new in 1.37 warn", []string{"--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37"}, ExitIncomplete,
			[]string{"MVP010:certificates.k8s.io/v1/clustertrustbundles=warning", "MVP010:resource.k8s.io/v1/devicetaintrules=warning"}, "404 on b at step 2, on c at steps 2–4; served by a"},
		{"a --runtime-config group/version the target removes blocks without traffic", []string{"--snapshot", plane, "--to", "1.37"}, ExitFindings,
			[]string{"MVP040:networking.k8s.io/v1beta1@a=blocking"}, "its clients may use it"},
		{"... blocks with replayed traffic that holds no client of it but spans 1s of the 7d window", []string{"--snapshot", plane, "--to", "1.37", "--audit-log", noClient}, ExitFindings,
			[]string{"MVP040:networking.k8s.io/v1beta1@a=blocking"}, "its clients may use it: the evidence read looks back less than the 7d evidence window (--evidence-window): traffic " + noClient + " (audit): 1s, first to last event"},
		{"... warns with replayed traffic that spans the window and holds no client of it", []string{"--snapshot", plane, "--to", "1.37", "--audit-log", noClient, "--evidence-window", "1s"}, ExitIncomplete,
			[]string{"MVP040:networking.k8s.io/v1beta1@a=warning"}, "none of the 2 replayed requests (over 1s) uses it"},
		{"... and blocks naming the client when the traffic holds one", []string{"--snapshot", plane, "--to", "1.37", "--audit-log", client}, ExitFindings,
			[]string{"MVP040:networking.k8s.io/v1beta1@a=blocking", "MVP021:networking.k8s.io/v1beta1/ipaddresses=blocking"}, "clients use it: ipam-controller/v0.3 (1 request(s))"},
		{"1.36 → 1.37: a replayed request for a GVR new in 1.37 fails today on every 1.36 server: already failing, a warning", []string{"--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37", "--audit-log", newGVR}, ExitIncomplete,
			[]string{"MVP020:certificates.k8s.io/v1/clustertrustbundles=warning", "MVP010:certificates.k8s.io/v1/clustertrustbundles=warning"},
			"1 of 1 request(s) for certificates.k8s.io/v1/clustertrustbundles already get 404 or 503 at the start on a, b, c: they fail with or without the upgrade, which harms none of them; clients: trust-manager/v0.9 (1 request(s))"},
		{"... the shipped audit log on a 1.36 plane: its requests that 404 today are not harm", []string{"--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz"}, ExitIncomplete,
			[]string{"MVP020:certificates.k8s.io/v1/clustertrustbundles=warning", "MVP020:storagemigration.k8s.io/v1/storageversionmigrations=warning"}, "already get 404 or 503 at the start on a, b, c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, code := preflightJSON(t, tc.args...)
			got := map[string]string{}
			says := false
			for _, f := range rep.Findings {
				got[f.Check+":"+f.Subject] = f.Severity
				says = says || strings.Contains(f.Message, tc.says)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d: %+v", code, tc.code, rep.Findings)
			}
			for _, w := range tc.want {
				key, sev, _ := strings.Cut(w, "=")
				if got[key] != sev {
					t.Errorf("%s: %q, want %s (findings %v)", key, got[key], sev, got)
				}
			}
			if !says {
				t.Errorf("no finding says %q: %+v", tc.says, rep.Findings)
			}
			if tc.code == ExitIncomplete && rep.Summary.Blocking != 0 {
				t.Errorf("blocking findings: %+v", rep.Findings)
			}
		})
	}
}

// TestPreflightMarkdownFits: a pull-request comment holds the report of a 5-server plane and
// of the shipped example; the detail is collapsed and the fix is printed once per check.
func TestPreflightMarkdownFits(t *testing.T) {
	for _, tc := range []struct {
		args []string
		max  int
	}{
		{[]string{"--servers", "a=1.36,b=1.36,c=1.36,d=1.36,e=1.36", "--to", "1.37"}, 20000},
		{[]string{"--servers", "a=1.36,b=1.36,c=1.36,d=1.36,e=1.36", "--proxy", "a=configured,b=default,c=off,d=default,e=configured", "--to", "1.37"}, 20000},
		{[]string{"--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz"}, 5000},
	} {
		t0 := time.Now()
		out, errOut, code := run(t, append(append([]string{"preflight"}, tc.args...), "-o", "markdown")...)
		if code == ExitError {
			t.Fatalf("%v: %s", tc.args, errOut)
		}
		t.Logf("%v: %d characters, exit %d (%s)", tc.args, len(out), code, time.Since(t0).Round(time.Millisecond))
		if len(out) >= tc.max {
			t.Errorf("%v: markdown is %d characters, want under %d", tc.args, len(out), tc.max)
		}
		if !strings.Contains(out, "<details><summary>") || strings.Count(out, "| Check | Findings | For | Fix |") != 1 {
			t.Errorf("%v: no collapsed detail, or the fixes not in one table:\n%s", tc.args, out)
		}
	}
}

// TestMarkdownWithinBudget: however many findings, the comment stays within what GitHub takes,
// and says how many rows it left to -o json.
func TestMarkdownWithinBudget(t *testing.T) {
	var findings []preflight.Finding
	for i := range 2000 {
		findings = append(findings, preflight.Finding{Check: "MVP010", Name: "gvr-reachable-every-step", Severity: preflight.Warning,
			Subject: fmt.Sprintf("g%d.example.com/v1/things", i), Message: fmt.Sprintf("404 on b at step %d; served by a", i),
			Evidence: []string{fmt.Sprintf("evidence %d %s", i, strings.Repeat("x", 80))}, Hint: "turn the peer proxy on"})
	}
	rep := &preflight.Report{Findings: findings}
	var b strings.Builder
	if err := preflightWriter(rep).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 65536 || !strings.Contains(b.String(), "more finding(s): `-o json` lists them all") || !strings.Contains(b.String(), "more line(s): `-o json` has them all") {
		t.Errorf("%d characters; tail:\n%s", b.Len(), b.String()[max(0, b.Len()-600):])
	}
}

// TestPreflightOldWindowKeys: accept rules of the per-server MVP010 form (ID:GVR@SERVER) still
// accept the per-GVR findings whose every server they cover, and the run says how to rewrite
// them.
func TestPreflightOldWindowKeys(t *testing.T) {
	args := []string{"preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37", "--no-baseline", "--ignore", "MVP010:*@b", "-o", "name"}
	out, errOut, code := run(t, args...)
	if code != ExitIncomplete || !strings.Contains(out, "MVP010:certificates.k8s.io/v1/clustertrustbundles") {
		t.Errorf("one server of two covered: exit %d, findings\n%s", code, out)
	}
	out, errOut, code = run(t, append(args, "--ignore", "MVP010:*@c")...)
	if code != ExitIncomplete || strings.Contains(out, "MVP010") || !strings.Contains(errOut, `warning: --ignore: MVP010:*@b names one server's window`) || !strings.Contains(errOut, "write MVP010:*") {
		t.Errorf("both covered: exit %d, findings\n%s\nstderr:\n%s", code, out, errOut)
	}
}
