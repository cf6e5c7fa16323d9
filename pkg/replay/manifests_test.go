package replay

import (
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
		{"not YAML", "a: [b\n", "--manifests stdin: "},
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
