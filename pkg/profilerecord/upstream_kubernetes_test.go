package profilerecord

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

var updateFacts = flag.Bool("update-facts", false, "rewrite testdata/kubernetes/*.json from the module cache")

// recordedKubernetesFacts is k8s.io/kubernetes v1.37.2's registrations, extracted like a
// prerelease's, kept to compare with the v1.37.2 profile recorded from the real server.
const recordedKubernetesFacts = "testdata/kubernetes/v1.37.2.json"

// kubernetesFactsFile is a KubernetesFacts and the hashes of the files it cites.
type kubernetesFactsFile struct {
	Kubernetes *KubernetesFacts `json:"kubernetes"`
	Files      []FileHash       `json:"files"`
}

// cachedModule is a module as the module cache holds it, or false when it is not there.
func cachedModule(t *testing.T, path, version string) (Module, bool) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.TrimSpace(string(out))
	dl := filepath.Join(cache, "cache", "download", path, "@v", version)
	sum, err1 := os.ReadFile(dl + ".ziphash")
	info, err2 := os.ReadFile(dl + ".info")
	dir := filepath.Join(cache, path+"@"+version)
	if _, err3 := os.Stat(filepath.Join(dir, "go.mod")); err1 != nil || err2 != nil || err3 != nil {
		return Module{}, false
	}
	var i struct{ Time string }
	if err := json.Unmarshal(info, &i); err != nil {
		t.Fatal(err)
	}
	return Module{Path: path, Version: version, Sum: strings.TrimSpace(string(sum)), Time: i.Time, Dir: dir}, true
}

// TestKubernetesFactsFromModuleCache extracts k8s.io/kubernetes v1.37.2 and v1.38.0-beta.0
// again from the module cache, when it holds them (make profiles-provisional downloads the
// prerelease, the e2e build v1.37.2), and compares with the committed facts byte for byte.
// Without the modules it skips: TestRecordedAgreesWithSource and
// TestEmbeddedProvisionalIsDerived test the committed facts offline.
func TestKubernetesFactsFromModuleCache(t *testing.T) {
	for _, tc := range []struct{ kube, staging string }{{"v1.37.2", "v0.37.2"}, {"v1.38.0-beta.0", "v0.38.0-beta.0"}} {
		t.Run(tc.kube, func(t *testing.T) {
			k, ok1 := cachedModule(t, kubernetesModule, tc.kube)
			api, ok2 := cachedModule(t, apiModule, tc.staging)
			server, ok3 := cachedModule(t, apiserverModule, tc.staging)
			if !ok1 || !ok2 || !ok3 {
				t.Skipf("k8s.io/kubernetes@%s, k8s.io/api and k8s.io/apiserver@%s are not all in the module cache", tc.kube, tc.staging)
			}
			var minor int
			fmt.Sscanf(tc.kube, "v1.%d", &minor)
			kf, files, err := ExtractKubernetes(k, api, server, minor)
			if err != nil {
				t.Fatal(err)
			}
			if tc.kube == "v1.37.2" {
				got, _ := json.MarshalIndent(kubernetesFactsFile{kf, files}, "", "  ")
				got = append(got, '\n')
				if *updateFacts {
					if err := os.WriteFile(recordedKubernetesFacts, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if want, err := os.ReadFile(recordedKubernetesFacts); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s is not what %s gives (%v): go test ./pkg/profilerecord -run TestKubernetesFactsFromModuleCache -update-facts", recordedKubernetesFacts, k.ID(), err)
				}
				return
			}
			facts := committedFacts(t, "1.38")
			if facts.Kubernetes == nil || facts.Kubernetes.Module.Version != tc.kube {
				t.Skipf("the committed 1.38 facts are not read from k8s.io/kubernetes@%s", tc.kube)
			}
			kf.Module.Dir = ""
			got, _ := json.Marshal(kf)
			want, _ := json.Marshal(facts.Kubernetes)
			if !bytes.Equal(got, want) {
				t.Errorf("the committed 1.38 facts' k8s.io/kubernetes part is not what %s gives: make profiles-provisional", k.ID())
			}
		})
	}
}

func committedFacts(t *testing.T, release string) *UpstreamFacts {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(profilesDir, "provisional", "v"+release+".json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadUpstreamFacts(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRecordedAgreesWithSource derives the default and api-all servers of 1.37 from
// k8s.io/kubernetes v1.37.2's source, the way a prerelease's are derived, and compares them
// GVR by GVR (kind, scope, verbs, subresources, served by default or only with api/all) with
// what the real v1.37.2 kube-apiserver served when make profiles recorded it. Every difference
// must be one docs/profiles.md explains (a row "| `group/version resource` |" of its table).
func TestRecordedAgreesWithSource(t *testing.T) {
	data, err := os.ReadFile(recordedKubernetesFacts)
	if err != nil {
		t.Fatal(err)
	}
	var kff kubernetesFactsFile
	if err := json.Unmarshal(data, &kff); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(filepath.Join(profilesDir, "v1.37.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Decode(base)
	if err != nil {
		t.Fatal(err)
	}
	// Derived alone: no base resources filled in for groups no provider registers.
	empty := profile.Profile{Version: p.Version}
	s := newKubeDeriver(empty, &UpstreamFacts{Release: "1.37", Kubernetes: kff.Kubernetes}, nil).servers()
	doc, err := os.ReadFile("../../docs/profiles.md")
	if err != nil {
		t.Fatal(err)
	}
	explained := regexp.MustCompile("(?m)^\\| `([a-z0-9.]+/v[0-9a-z]+ [a-z]+)` \\|").FindAllStringSubmatch(string(doc), -1)
	known := map[string]bool{}
	for _, m := range explained {
		known[m[1]] = true
	}
	diffs := gvrDiffs("default", p.Resources, s.def)
	diffs = append(diffs, gvrDiffs("api-all", p.Full, s.full)...)
	if len(diffs) == 0 {
		t.Fatal("no difference at all: docs/profiles.md's table explains differences that no longer exist")
	}
	seen := map[string]bool{}
	for _, d := range diffs {
		seen[d.gvr] = true
		if !known[d.gvr] {
			t.Errorf("%s server, %s: %s — not explained in docs/profiles.md", d.server, d.gvr, d.what)
		}
	}
	for gvr := range known {
		if !seen[gvr] {
			t.Errorf("docs/profiles.md explains a difference in %s that the comparison no longer shows", gvr)
		}
	}
}

type gvrDiff struct{ server, gvr, what string }

func gvrDiffs(server string, recorded, derived []snapshot.Resource) []gvrDiff {
	rec, der := index(recorded), index(derived)
	var keys []string
	for k := range rec {
		keys = append(keys, k)
	}
	for k := range der {
		if _, ok := rec[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []gvrDiff
	for _, k := range keys {
		r, inRec := rec[k]
		d, inDer := der[k]
		i := strings.LastIndex(k, "/")
		gvr := k[:i] + " " + k[i+1:]
		switch {
		case !inDer:
			out = append(out, gvrDiff{server, gvr, "the real server serves it, the source derivation does not"})
		case !inRec:
			out = append(out, gvrDiff{server, gvr, "the source derivation serves it, the real server does not"})
		case r.Kind != d.Kind || r.Namespaced != d.Namespaced || fmt.Sprint(r.Verbs) != fmt.Sprint(d.Verbs) || fmt.Sprint(r.Subresources) != fmt.Sprint(d.Subresources):
			out = append(out, gvrDiff{server, gvr, fmt.Sprintf("recorded %s %v %v %v, derived %s %v %v %v", r.Kind, r.Namespaced, r.Verbs, r.Subresources, d.Kind, d.Namespaced, d.Verbs, d.Subresources)})
		}
	}
	return out
}

// TestNewKindsOf138 pins what the derivation says of the two kinds k8s.io/api v0.38.0-beta.0
// introduces, from the committed facts: CompositePodGroup is registered (namespaced, every
// verb, status) in scheduling.k8s.io/v1beta1, off by default, behind the CompositePodGroup
// gate, which is off by default: no provisional server serves it; AuthorizationConditionsReview
// has no storage: none serves it. Each with the line it is read from.
func TestNewKindsOf138(t *testing.T) {
	facts := committedFacts(t, "1.38")
	if facts.Kubernetes == nil {
		t.Fatal("the 1.38 facts are not read from k8s.io/kubernetes")
	}
	var cpg *ResourceFact
	for i, r := range facts.Kubernetes.Resources {
		if r.GroupVersion() == "scheduling.k8s.io/v1beta1" && r.Resource == "compositepodgroups" {
			cpg = &facts.Kubernetes.Resources[i]
		}
		if r.Group == "authorization.k8s.io" && r.Version != "v1" {
			t.Errorf("authorization.k8s.io/%s %s is registered: %s", r.Version, r.Resource, r.Cite)
		}
	}
	if cpg == nil {
		t.Fatal("no scheduling.k8s.io/v1beta1 compositepodgroups in the facts")
	}
	kube := "k8s.io/kubernetes@v1.38.0-beta.0/"
	if cpg.Kind != "CompositePodGroup" || !cpg.Namespaced || strings.Join(cpg.Verbs, ",") != strings.Join(storeVerbs, ",") ||
		fmt.Sprint(cpg.Subresources) != "[status]" || len(cpg.Gates) != 1 || cpg.Gates[0].Name != "CompositePodGroup" || !cpg.Gates[0].Enabled ||
		!strings.HasPrefix(cpg.Cite, kube+"pkg/registry/scheduling/rest/") || !strings.HasPrefix(cpg.ScopeCite, kube+"pkg/registry/scheduling/compositepodgroup/") {
		t.Errorf("compositepodgroups: %+v", *cpg)
	}
	k := newKubeDeriver(profile.Profile{}, facts, nil)
	if g := k.gates["CompositePodGroup"]; g.Default || !strings.HasPrefix(g.Cite, kube+"pkg/features/kube_features.go:") {
		t.Errorf("gate CompositePodGroup: %+v, want off by default, cited", g)
	}
	if gv, ok := k.gvs["scheduling.k8s.io/v1beta1"]; !ok || gv.Default || !strings.HasPrefix(gv.Cite, kube+instanceFile+":") {
		t.Errorf("scheduling.k8s.io/v1beta1: %+v, want off by default, cited", gv)
	}
	if _, ok := k.gvs["authorization.k8s.io/v1alpha1"]; ok {
		t.Error("authorization.k8s.io/v1alpha1 is in instance.go's lists")
	}
	snap, err := Derive(mustRead(t, filepath.Join(profilesDir, "v1.37.2.json")), facts)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range snap.Servers {
		for _, r := range srv.Resources {
			if r.Kind == "CompositePodGroup" || r.Kind == "AuthorizationConditionsReview" {
				t.Errorf("server %s serves %s %s", srv.Name, r.GroupVersion(), r.Resource)
			}
		}
	}
	lines := strings.Join(snap.Provisional.Derived, "\n")
	for _, want := range []string{
		"scheduling.k8s.io/v1beta1 CompositePodGroup is new in 1.38 (k8s.io/api@v0.38.0-beta.0/scheduling/v1beta1/",
		"registered only with feature gate CompositePodGroup on (" + kube + "pkg/registry/scheduling/rest/storage_scheduling.go:",
		"authorization.k8s.io/v1alpha1 AuthorizationConditionsReview is new in 1.38 (k8s.io/api@v0.38.0-beta.0/authorization/v1alpha1/",
		"the storage provider of authorization.k8s.io (" + kube + "pkg/registry/authorization/rest/storage_authorization.go:",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("derived lines lack %q", want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// miniKubernetes extracts the miniature of k8s.io/kubernetes in testdata: a core provider whose
// resources are fields of a struct its constructor returns (pods and their subresources; the
// legacy bindings, whose kind and scope are delegated to another type, then to the store's
// strategy), and a provider of things.example.io with a registration in each branch of a gate
// test, one behind a k8s.io/apiserver gate, a store whose strategy has a status twin declared
// first, and a wrapper embedding rest.StandardStorage around a kind the lifecycle removes.
func miniKubernetes(t *testing.T) (*KubernetesFacts, []FileHash) {
	t.Helper()
	s := testSources()
	kf, files, err := ExtractKubernetes(testModule(kubernetesModule, "v1.38.0-beta.0", "kubernetes-new"), s.API, s.APIServer, 38)
	if err != nil {
		t.Fatal(err)
	}
	return kf, files
}

func TestExtractKubernetes(t *testing.T) {
	kf, files := miniKubernetes(t)
	short := func(cite string) string { _, rel := splitCitedFile(cite); return rel }
	var got []string
	for _, r := range kf.Resources {
		var gates []string
		for _, g := range r.Gates {
			gates = append(gates, fmt.Sprintf("%s=%v@%s", g.Name, g.Enabled, short(g.Cite)))
		}
		got = append(got, fmt.Sprintf("%s %s %s ns=%v %s sub=%s gates=%s removed=%s at %s kind %s scope %s", r.GroupVersion(), r.Resource, r.Kind, r.Namespaced,
			strings.Join(r.Verbs, ","), strings.Join(r.Subresources, ","), strings.Join(gates, ","), r.RemovedIn, short(r.Cite), short(r.KindCite), short(r.ScopeCite)))
	}
	all := "create,delete,deletecollection,get,list,patch,update,watch"
	want := []string{ // in group/version/resource order
		"v1 bindings Binding ns=true create sub= gates= removed= at pkg/registry/core/rest/storage_core.go:20 kind pkg/registry/core/pod/storage/storage.go:41 scope pkg/registry/core/pod/strategy.go:7",
		"v1 pods Pod ns=true " + all + " sub=binding,status gates= removed= at pkg/registry/core/rest/storage_core.go:15 kind pkg/registry/core/pod/storage/storage.go:22 scope pkg/registry/core/pod/strategy.go:7",
		"things.example.io/v1 gizmos Gizmo ns=true " + all + " sub=status gates=NewThing=true@pkg/registry/things/rest/storage_things.go:25 removed= at pkg/registry/things/rest/storage_things.go:30 kind pkg/registry/things/gizmo/storage/storage.go:16 scope pkg/registry/things/gizmo/strategy.go:13",
		"things.example.io/v1 oldreviews Review ns=false create sub= gates=KubeThing=false@pkg/registry/things/rest/storage_things.go:19 removed= at pkg/registry/things/rest/storage_things.go:22 kind pkg/registry/things/review/rest.go:13 scope pkg/registry/things/review/rest.go:9",
		"things.example.io/v1 reviews Review ns=false create sub= gates=KubeThing=true@pkg/registry/things/rest/storage_things.go:19 removed= at pkg/registry/things/rest/storage_things.go:20 kind pkg/registry/things/review/rest.go:13 scope pkg/registry/things/review/rest.go:9",
		"things.example.io/v1beta1 widgets Widget ns=false " + all + " sub= gates= removed=1.38 at pkg/registry/things/rest/storage_things.go:44 kind pkg/registry/things/widget/storage/storage.go:15 scope pkg/registry/things/wrapped/storage.go:13",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	var gvs []string
	for _, g := range kf.GroupVersions {
		gvs = append(gvs, fmt.Sprintf("%s %v %s", g.GroupVersion(), g.Default, short(g.Cite)))
	}
	if want := "things.example.io/v1 true pkg/controlplane/instance.go:21|things.example.io/v1beta1 false pkg/controlplane/instance.go:24|v1 true pkg/controlplane/instance.go:20"; strings.Join(gvs, "|") != want {
		t.Errorf("group/versions: %s, want %s (listed twice: once)", strings.Join(gvs, "|"), want)
	}
	if got := fmt.Sprint(kf.Gates); got != "[{KubeThing true Beta false k8s.io/kubernetes@v1.38.0-beta.0/pkg/features/kube_features.go:10} {NewThing false Alpha false k8s.io/apiserver@v0.38.0-alpha.1/pkg/features/kube_features.go:10}]" {
		t.Errorf("gates: %s", got)
	}
	for _, h := range files {
		mod, rel := splitCitedFile(h.File)
		dir := map[string]string{"k8s.io/api@v0.38.0-alpha.1": "api-new", "k8s.io/apiserver@v0.38.0-alpha.1": "apiserver-new", "k8s.io/kubernetes@v1.38.0-beta.0": "kubernetes-new"}[mod]
		if data, err := os.ReadFile(filepath.Join("testdata", "upstream", dir, rel)); err != nil || sha256Hex(data) != h.SHA256 {
			t.Errorf("%s: hash %s does not match the file (%v)", h.File, h.SHA256, err)
		}
	}
}

// TestKubernetesServers: api-all serves what is registered with its gates at their defaults
// and not removed; default only the group/versions on by default; api-all-serve-removed also
// the kinds removed in the release; the groups no provider registers come from the base.
func TestKubernetesServers(t *testing.T) {
	kf, _ := miniKubernetes(t)
	crd := snapshot.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition", Verbs: storeVerbs, Source: snapshot.SourceBuiltin}
	old := snapshot.Resource{Group: "things.example.io", Version: "v1", Resource: "olds", Kind: "Old", Verbs: storeVerbs, Source: snapshot.SourceBuiltin}
	base := profile.Profile{Resources: []snapshot.Resource{old, crd}, Full: []snapshot.Resource{old, crd}}
	s := newKubeDeriver(base, &UpstreamFacts{Release: "1.38", Kubernetes: kf}, nil).servers()
	names := func(rs []snapshot.Resource) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.GroupVersion()+"/"+r.Resource)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ name, got, want string }{
		{"default", names(s.def), "apiextensions.k8s.io/v1/customresourcedefinitions v1/bindings v1/pods things.example.io/v1/reviews"},
		{"api-all", names(s.full), "apiextensions.k8s.io/v1/customresourcedefinitions v1/bindings v1/pods things.example.io/v1/reviews"},
		{"api-all-serve-removed", names(s.serveRemoved), "apiextensions.k8s.io/v1/customresourcedefinitions v1/bindings v1/pods things.example.io/v1/reviews things.example.io/v1beta1/widgets"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	lines := strings.Join(s.derived, "\n")
	for _, want := range []string{
		"things.example.io/v1 olds (Old): served by the base profile's api-all; no storage provider of k8s.io/kubernetes@v1.38.0-beta.0 registers it: dropped",
		"things.example.io/v1 gizmos (Gizmo, namespaced, verbs " + strings.Join(storeVerbs, ",") + ", subresources status; new since",
		"registered only with feature gate NewThing on (k8s.io/kubernetes@v1.38.0-beta.0/pkg/registry/things/rest/storage_things.go:25), which is off by default in 1.38 (Alpha, not locked)",
		"served by none of the provisional servers",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("derived lines lack %q:\n%s", want, lines)
		}
	}
	if !strings.Contains(strings.Join(s.notDerived, "\n"), "apiextensions.k8s.io: served by what kube-apiserver embeds") {
		t.Errorf("notDerived: %q", s.notDerived)
	}
}
