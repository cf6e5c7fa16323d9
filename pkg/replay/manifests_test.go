package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestReadManifests(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/ip.yaml": `# a comment
---
apiVersion: networking.k8s.io/v1beta1
kind: IPAddress
metadata:
  name: 10.0.0.9
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`,
		"b/list.json": `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}},
  {"apiVersion": "example.com/v1", "kind": "Widget"}]}`,
		"b/notes.txt": "apiVersion: v1\nkind: Pod\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := ReadManifests(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, strings.TrimPrefix(o.File, dir+"/")+":"+strconv.Itoa(o.Line)+" "+o.APIVersion+" "+o.Kind)
	}
	want := []string{"a/ip.yaml:3 networking.k8s.io/v1beta1 IPAddress", "a/ip.yaml:8 v1 ConfigMap", "b/list.json:2 apps/v1 Deployment", "b/list.json:3 example.com/v1 Widget"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	stdin, err := ReadManifests("-", strings.NewReader("apiVersion: batch/v1\nkind: Job\n---\napiVersion: batch/v1\nkind: CronJob\n"))
	if err != nil || len(stdin) != 2 || stdin[1].File != "stdin" || stdin[1].Line != 4 {
		t.Errorf("stdin: %+v, %v", stdin, err)
	}

	start := &snapshot.Snapshot{Servers: []snapshot.Server{{Name: "a", Reachable: true, Resources: []snapshot.Resource{
		{Group: "networking.k8s.io", Version: "v1beta1", Resource: "ipaddresses", Kind: "IPAddress"},
		{Version: "v1", Resource: "configmaps", Kind: "ConfigMap"}}}}}
	ev := ManifestEvidence(dir, objs, start)
	cs := ev.Clients["networking.k8s.io/v1beta1/ipaddresses"]
	if len(cs) != 1 || cs[0].String() != filepath.Join(dir, "a/ip.yaml")+":3 (IPAddress networking.k8s.io/v1beta1)" {
		t.Errorf("clients of ipaddresses: %+v", cs)
	}
	if s := ev.Sources[0]; s.Objects != 4 || s.Unmapped != 2 || s.AllGVRs {
		t.Errorf("source %+v", s)
	}
}

func TestReadManifestsErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, says string }{
		{"not YAML", "a: [b\n", "--manifests stdin:2:1: "},
		{"too many documents", strings.Repeat("---\na: 1\n", MaxEvidenceDocuments+1), "cut at stdin, where the run reached its bound of 200000 documents"},
	} {
		if _, err := ReadManifests("-", strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.says)
		}
	}
	if _, err := ReadManifests(filepath.Join(t.TempDir(), "missing"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing path: %v", err)
	}
}

// TestHelmEvidenceNamesItsSource: a release whose manifest does not parse is reported under
// the flag that read it, never as --manifests.
func TestHelmEvidenceNamesItsSource(t *testing.T) {
	ev := HelmEvidence([]snapshot.HelmRelease{{Namespace: "ns", Name: "app", Revision: 2, Manifest: "a: [b\n"}}, &snapshot.Snapshot{})
	if len(ev.Sources) != 1 || !strings.HasPrefix(ev.Sources[0].Error, "--helm-releases helm release ns/app (revision 2): ") {
		t.Errorf("sources %+v", ev.Sources)
	}
}

// A document that does not parse is a problem naming FILE:LINE:COLUMN; the documents after it
// and the other files are read; a template gets the hint to render it; a README is skipped and
// named; `# Source:` names the chart template of each document.
func TestReadManifestSetGoesOn(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: ns\n---\nkey: [unclosed\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: two}\n",
		"b.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n{{ include \"x\" . | indent 4 }}\n",
		"c.yaml":    "---\n# Source: chart/templates/svc.yaml\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n# Source: chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"d.yaml":    "apiVersion: {{ .Values.apiVersion }}\nkind: Job\n",
		"README.md": "# notes\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := ReadManifestSet(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range set.Objects {
		got = append(got, fmt.Sprintf("%s:%d %s %s %s/%s %s", filepath.Base(o.File), o.Line, o.APIVersion, o.Kind, o.Namespace, o.Name, o.Template))
	}
	want := []string{"a.yaml:1 v1 ConfigMap ns/one ", "a.yaml:9 v1 Secret /two ", "c.yaml:3 v1 Service /s chart/templates/svc.yaml", "c.yaml:8 v1 ConfigMap /c chart/templates/cm.yaml"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var problems []string
	for _, p := range set.Problems {
		problems = append(problems, fmt.Sprintf("%s template=%t", strings.TrimPrefix(p.Where(), dir+"/"), p.Template))
	}
	wantProblems := []string{"a.yaml:7:6 template=false", "b.yaml:6:1 template=true", "d.yaml:1 template=true"}
	if strings.Join(problems, "\n") != strings.Join(wantProblems, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s\n%+v", strings.Join(problems, "\n"), strings.Join(wantProblems, "\n"), set.Problems)
	}
	if len(set.Skipped) != 1 || filepath.Base(set.Skipped[0]) != "README.md" || set.Files != 4 {
		t.Errorf("skipped %v, files %d", set.Skipped, set.Files)
	}
	if !strings.Contains(set.Problems[1].Text("--manifests"), "helm template") {
		t.Errorf("no render hint: %s", set.Problems[1].Text("--manifests"))
	}
}

// Each Helm release's manifest is read as a file named by the release, with the chart template
// of each document.
func TestReadHelmReleases(t *testing.T) {
	sets := ReadHelmReleases([]snapshot.HelmRelease{{Namespace: "ns", Name: "app", Revision: 3,
		Manifest: "---\n# Source: app/templates/ing.yaml\napiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: web}\n---\nkey: [x\n"}})
	if len(sets) != 1 || sets[0].Path != "helm release ns/app (revision 3)" || len(sets[0].Objects) != 1 || len(sets[0].Problems) != 1 {
		t.Fatalf("sets %+v", sets)
	}
	o := sets[0].Objects[0]
	if o.File != sets[0].Path || o.Line != 3 || o.Template != "app/templates/ing.yaml" || o.Name != "web" {
		t.Errorf("object %+v", o)
	}
}

// TestManifestLongLines: a line longer than the reader's buffer (64 KiB) is read whole, and
// the lines after it are counted right; "---" where the buffer's second part of a line starts
// is not a marker: a marker is only ever at the start of a line.
func TestManifestLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "apiVersion: v1\nkind: ConfigMap\ndata: {a: " + strings.Repeat("x", 64<<10-len("data: {a: ")) + "--- " + long + "}\n---\napiVersion: v1\nkind: Secret\n---\n" + long + "\n"
	set, err := ReadManifestSet("-", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Objects) != 2 || set.Objects[0].Line != 1 || set.Objects[1].Kind != "Secret" || set.Objects[1].Line != 5 || len(set.Problems) != 0 {
		t.Errorf("objects %+v, problems %+v", set.Objects, set.Problems)
	}
}
