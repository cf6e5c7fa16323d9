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

	"github.com/mvpctl/mvpctl/pkg/simulate"
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
	p, err := simulate.DecodeProfile(base)
	if err != nil {
		t.Fatal(err)
	}
	// Derived alone: no base resources filled in for groups no provider registers.
	empty := simulate.Profile{Version: p.Version}
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
	k := newKubeDeriver(simulate.Profile{}, facts, nil)
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
