package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// crdWidgets has a served, stored v1 and a served, deprecated v1beta1 with a warning of its own;
// crdGadgets a stored v2, a deprecated v1beta1 without a warning (the apiserver's default text)
// and a v1 no longer served.
const (
	crdWarning = `crd.mvpctl.io/v1beta1 Widget is "deprecated"; migrate to crd.mvpctl.io/v1 before 2027`
	crdWidgets = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.crd.mvpctl.io"},
"spec":{"group":"crd.mvpctl.io","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[
{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
{"name":"v1beta1","served":true,"storage":false,"deprecated":true,"deprecationWarning":"crd.mvpctl.io/v1beta1 Widget is \"deprecated\"; migrate to crd.mvpctl.io/v1 before 2027",
 "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	crdGadgets = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gadgets.crd.mvpctl.io"},
"spec":{"group":"crd.mvpctl.io","scope":"Namespaced","names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},"versions":[
{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
{"name":"v1beta1","served":true,"storage":false,"deprecated":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
{"name":"v1","served":false,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
)

// TestPreflightCRDVersions, on a real v1.36 apiserver with two CRDs: `mvpctl preflight` of a
// manifest file holding objects of both, live and from a snapshot of it, says each deprecated
// version (info) with the very warning the apiserver sends on a request of it, and the version
// no longer served (blocking, exit 3) with the versions its CRD serves, as the apiserver's 404
// shows; a file of served versions only passes. A user who may not list the CRDs gets the
// add-on objects not judged and a partial result (exit 2), never a pass and no false alarm.
func TestPreflightCRDVersions(t *testing.T) {
	harness.SkipIfUnsupported(t)
	t0 := time.Now()
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-a", Version: harness.V1_36})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := cp.Server("kas-a")
	do := func(method, path, body string) *harness.Response {
		t.Helper()
		r, err := admin.Do(ctx, method, path, http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}, strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return r
	}
	for _, crd := range []string{crdWidgets, crdGadgets} {
		if r := do(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd); r.StatusCode != http.StatusCreated {
			t.Fatalf("creating a CRD: %v", r)
		}
	}
	// Established: each served version answers a list.
	for _, path := range []string{"/apis/crd.mvpctl.io/v1/namespaces/default/widgets", "/apis/crd.mvpctl.io/v1beta1/namespaces/default/widgets",
		"/apis/crd.mvpctl.io/v2/namespaces/default/gadgets", "/apis/crd.mvpctl.io/v1beta1/namespaces/default/gadgets"} {
		for do(http.MethodGet, path, "").StatusCode != http.StatusOK {
			if ctx.Err() != nil {
				t.Fatalf("%s not served", path)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// What the apiserver does: the warnings on the deprecated versions, 404 on the one not served.
	truth := map[string]string{}
	for _, c := range []struct{ name, path, body string }{
		{"widget", "/apis/crd.mvpctl.io/v1beta1/namespaces/default/widgets", `{"apiVersion":"crd.mvpctl.io/v1beta1","kind":"Widget","metadata":{"name":"w"}}`},
		{"gadget", "/apis/crd.mvpctl.io/v1beta1/namespaces/default/gadgets", `{"apiVersion":"crd.mvpctl.io/v1beta1","kind":"Gadget","metadata":{"name":"g"}}`},
	} {
		r := do(http.MethodPost, c.path, c.body)
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %v", c.path, r)
		}
		truth[c.name] = warningText(r.Header.Get("Warning"))
	}
	if truth["widget"] != crdWarning {
		t.Errorf("the apiserver warns %q on widgets v1beta1, want the CRD's deprecationWarning %q", truth["widget"], crdWarning)
	}
	t.Logf("the apiserver's warnings: widgets v1beta1 %q; gadgets v1beta1 %q", truth["widget"], truth["gadget"])
	if r := do(http.MethodPost, "/apis/crd.mvpctl.io/v1/namespaces/default/gadgets", `{"apiVersion":"crd.mvpctl.io/v1","kind":"Gadget","metadata":{"name":"g1"}}`); r.StatusCode != http.StatusNotFound {
		t.Errorf("POST gadgets v1 (served: false): %v, want 404", r)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "addons.yaml")
	good := filepath.Join(dir, "served.yaml")
	write := func(path string, docs ...string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	obj := func(apiVersion, kind, name string) string {
		return "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n  namespace: default\n"
	}
	write(bad, obj("crd.mvpctl.io/v1beta1", "Widget", "old-widget"), obj("crd.mvpctl.io/v1", "Gadget", "gone-gadget"),
		obj("crd.mvpctl.io/v1beta1", "Gadget", "old-gadget"), obj("crd.mvpctl.io/v1", "Widget", "widget"))
	write(good, obj("crd.mvpctl.io/v1", "Widget", "widget"), obj("crd.mvpctl.io/v2", "Gadget", "gadget"), obj("apps/v1", "Deployment", "d"))

	snap, _ := mvpctlSnapshot(t, filepath.Join(dir, "snap.json"), []int{0}, "--kubeconfig", cp.Kubeconfig)
	recorded := map[string]string{}
	for _, d := range snap.Cluster.CustomResourceDefinitions {
		for _, v := range d.Versions {
			w := ""
			if v.DeprecationWarning != nil {
				w = *v.DeprecationWarning
			}
			recorded[d.Plural+"/"+v.Name] = strings.TrimSpace(strings.Join([]string{map[bool]string{true: "served", false: "not-served"}[v.Served], map[bool]string{true: "deprecated"}[v.Deprecated], w}, " "))
		}
	}
	for k, want := range map[string]string{"widgets/v1": "served", "widgets/v1beta1": "served deprecated " + crdWarning,
		"gadgets/v2": "served", "gadgets/v1beta1": "served deprecated", "gadgets/v1": "not-served"} {
		if recorded[k] != want {
			t.Errorf("snapshot records %s as %q, want %q (all: %v)", k, recorded[k], want, recorded)
		}
	}

	// Over a window the plane's counters cover, so that the removed APIs' evidence does not block.
	common := []string{"--no-baseline", "--evidence-window", "1s"}
	for _, src := range []struct {
		name string
		args []string
	}{{"live", []string{"--kubeconfig", cp.Kubeconfig}}, {"from the snapshot", []string{"--snapshot", snap.Path}}} {
		rep := runPreflight(t, 3, append(append(append([]string{}, src.args...), common...), "--manifests", bad)...)
		for _, want := range []struct{ check, subject, sev, says, hint string }{
			{"MVP073", "crd.mvpctl.io/v1beta1 Widget", "info", `its CustomResourceDefinition widgets.crd.mvpctl.io deprecates version v1beta1; each request gets the warning "` + crdWarning + `"`, "use crd.mvpctl.io/v1 Widget instead"},
			{"MVP073", "crd.mvpctl.io/v1beta1 Gadget", "info", `each request gets the warning "` + truth["gadget"] + `"`, "use crd.mvpctl.io/v2 Gadget instead"},
			{"MVP070", "crd.mvpctl.io/v1 Gadget", "blocking", "its CustomResourceDefinition gadgets.crd.mvpctl.io does not serve version v1 (served: false) and serves v2, v1beta1: applying them fails today and after the upgrade", "use crd.mvpctl.io/v2 Gadget instead"},
		} {
			f, ok := findingFor(rep, want.check, want.subject)
			if !ok || f.Severity != want.sev || !strings.Contains(f.Message, want.says) || !strings.Contains(f.Hint, want.hint) {
				t.Errorf("%s: %s %s: got %+v (found %v), want %s saying %q, hint %q", src.name, want.check, want.subject, f, ok, want.sev, want.says, want.hint)
			} else {
				t.Logf("%s: %s %s %s: %s — %s", src.name, f.Check, f.Severity, f.Subject, f.Message, f.Hint)
			}
		}
		for _, f := range rep.Findings {
			if strings.HasPrefix(f.Check, "MVP07") && strings.Contains(f.Subject, "crd.mvpctl.io/v1 Widget") {
				t.Errorf("%s: a finding on the served version: %+v", src.name, f)
			}
		}
		ok := runPreflight(t, 0, append(append(append([]string{}, src.args...), common...), "--fail-on", "blocking", "--manifests", good)...)
		for _, f := range ok.Findings {
			if strings.HasPrefix(f.Check, "MVP07") {
				t.Errorf("%s: served versions only: %+v", src.name, f)
			}
		}
	}

	// A user who may read discovery but not list the CRDs.
	const user = "mvpctl-no-crds"
	const rbacAPI = "/apis/rbac.authorization.k8s.io/v1"
	for path, body := range map[string]string{
		rbacAPI + "/clusterroles": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"no-crds-reader"},"rules":[
		{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/version","/readyz","/readyz/*","/metrics"],"verbs":["get"]},
		{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["list","get"]},
		{"apiGroups":["apiregistration.k8s.io"],"resources":["apiservices"],"verbs":["list"]}]}`,
		rbacAPI + "/clusterrolebindings": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"no-crds-reader"},
		"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"no-crds-reader"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"` + user + `"}]}`,
	} {
		if r := do(http.MethodPost, path, body); r.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %v", path, r)
		}
	}
	kubeconfig, c := userKubeconfig(t, cp, admin, user)
	for {
		r, err := admin.DoWith(ctx, c, http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices", nil, nil)
		if err == nil && r.StatusCode == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the user's role is not in force: %v %v", err, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
	r := runMvpctl(t, "preflight", "--to", "1.37", "-o", "json", "--kubeconfig", kubeconfig, "--no-baseline", "--evidence-window", "1s", "--fail-on", "blocking", "--manifests", bad)
	var rep struct {
		Findings []struct{ Check, Severity, Subject, Message string }
		Verdict  struct{ Partial []string }
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	notJudged := 0
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Subject, "crd.mvpctl.io/") || !strings.HasPrefix(f.Check, "MVP07") {
			continue
		}
		if f.Check == "MVP072" && f.Severity == "warning" && strings.Contains(f.Message, "group crd.mvpctl.io is not a built-in API, and the cluster's CustomResourceDefinitions were not read (") {
			notJudged++
		} else {
			t.Errorf("without the CRDs, an add-on object judged: %+v", f)
		}
	}
	// Partial, not a pass, and no false alarm: the rehearsed upgrade keeps the groups no
	// kube-apiserver release has (they can only be add-ons') and blocks on nothing.
	if r.Exit != 2 || notJudged != 4 || !strings.Contains(strings.Join(rep.Verdict.Partial, "; "), "the cluster's CustomResourceDefinitions were not read (") {
		t.Errorf("%s\nwant exit 2, the 4 add-on objects not judged (MVP072: %d) and the run partial for the CRDs not read; got %+v", r, notJudged, rep)
	}
	t.Logf("without list on CRDs: exit %d, partial: %v", r.Exit, rep.Verdict.Partial)
	t.Logf("timing: TestPreflightCRDVersions took %s", time.Since(t0).Round(time.Millisecond))
}

// warningText is the text of a Warning header (`299 - "text"`), unquoted.
func warningText(h string) string {
	s := strings.TrimPrefix(h, `299 - "`)
	s = strings.TrimSuffix(s, `"`)
	return strings.ReplaceAll(s, `\"`, `"`)
}

// findingFor is the finding of check on subject.
func findingFor(rep preflightJSON, check, subject string) (struct{ Check, Severity, Subject, Message, Hint string }, bool) {
	for _, f := range rep.Findings {
		if f.Check == check && f.Subject == subject {
			return f, true
		}
	}
	return struct{ Check, Severity, Subject, Message, Hint string }{}, false
}
