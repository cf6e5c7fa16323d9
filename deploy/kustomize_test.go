package deploy_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// The kustomizations of deploy/, as `kubectl apply -k` takes them, and the component.
const (
	baseDir      = "exporter"
	operatorDir  = "exporter-prometheus-operator"
	componentDir = "exporter/prometheus-operator"
)

// object is one object of a rendered kustomization.
type object struct {
	apiVersion, kind, namespace, name string
	labels                            map[string]string
	doc                               string // its YAML
}

func (o object) key() string { return o.kind + " " + o.namespace + "/" + o.name }

// render builds dir on fsys as `kubectl kustomize dir` does (kustomize's Go library, its
// default options: files only from within each kustomization's directory).
func render(t *testing.T, fsys filesys.FileSystem, dir string) []object {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var objs []object
	for _, r := range m.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", dir, r.CurId(), err)
		}
		objs = append(objs, object{apiVersion: r.GetApiVersion(), kind: r.GetKind(), namespace: r.GetNamespace(),
			name: r.GetName(), labels: r.GetLabels(), doc: string(doc)})
	}
	return objs
}

// the one object of a kind, decoded strictly into v.
func theObject(t *testing.T, objs []object, kind string, v any) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o.kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects of kind %s, want one", len(found), kind)
	}
	if err := yaml.UnmarshalStrict([]byte(found[0].doc), v); err != nil {
		t.Fatalf("%s: %v", found[0].key(), err)
	}
	return found[0]
}

// everyCluster are the kinds every cluster serves (no CRD), all the base may hold.
var everyCluster = map[string]bool{
	"v1/Namespace": true, "v1/ServiceAccount": true, "v1/Service": true, "apps/v1/Deployment": true,
	"rbac.authorization.k8s.io/v1/ClusterRole": true, "rbac.authorization.k8s.io/v1/ClusterRoleBinding": true,
	"rbac.authorization.k8s.io/v1/Role": true, "rbac.authorization.k8s.io/v1/RoleBinding": true,
}

// notEveryCluster are the objects of kinds a cluster serves only with a CRD (or that the
// base has no business holding).
func notEveryCluster(objs []object) []string {
	var out []string
	for _, o := range objs {
		if !everyCluster[o.apiVersion+"/"+o.kind] {
			out = append(out, o.apiVersion+" "+o.key())
		}
	}
	return out
}

// makefileVar is the default (`NAME ?= value`) the Makefile gives a variable.
func makefileVar(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*(\S+)\s*$`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatalf("the Makefile has no %s ?= line", name)
	}
	return m[1]
}

// TestKustomizeEveryDirectory: every kustomization under deploy/ is one this file renders and
// checks; every component is composed by one of them.
func TestKustomizeEveryDirectory(t *testing.T) {
	known := map[string]string{baseDir: "Kustomization", operatorDir: "Kustomization", componentDir: "Component"}
	composed := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.Name() != "kustomization.yaml" {
			return err
		}
		dir := filepath.Dir(p)
		var k struct {
			Kind       string
			Components []string
		}
		readYAML(t, p, &k)
		if known[dir] != k.Kind {
			t.Errorf("%s: a %s this test does not render or check (known: %v)", p, k.Kind, known)
		}
		for _, c := range k.Components {
			composed[filepath.Join(dir, c)] = true
		}
		delete(known, dir)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(known) > 0 {
		t.Errorf("kustomizations missing: %v", known)
	}
	if !composed[componentDir] {
		t.Errorf("no kustomization composes the component %s", componentDir)
	}
}

// TestKustomizeBase renders deploy/exporter and checks what a reviewer would: only kinds every
// cluster serves; the image `make image` builds, by name and tag; labels and selectors; the
// RBAC request by request (least privilege) bound to the service account the Deployment runs
// as; the pod's securityContext.
func TestKustomizeBase(t *testing.T) {
	objs := render(t, filesys.MakeFsOnDisk(), baseDir)
	if bad := notEveryCluster(objs); len(bad) > 0 {
		t.Errorf("the base holds kinds not every cluster serves: %v", bad)
	}
	var d appsv1.Deployment
	theObject(t, objs, "Deployment", &d)
	var svc corev1.Service
	theObject(t, objs, "Service", &svc)
	checkExporterDeployment(t, d, svc)

	want := makefileVar(t, "IMAGE_REPO") + ":" + makefileVar(t, "IMAGE_TAG")
	if got := d.Spec.Template.Spec.Containers[0].Image; got != want || strings.HasSuffix(got, ":latest") {
		t.Errorf("the Deployment runs %s, want %s (what `make image` builds), a tag that is not latest", got, want)
	}
	if d.Spec.Template.Spec.Containers[0].ImagePullPolicy == corev1.PullAlways {
		t.Error("imagePullPolicy Always: an image loaded into the nodes (kind load, ctr import) would not run")
	}
	for _, o := range objs {
		if o.labels["app.kubernetes.io/part-of"] != "mvpctl" {
			t.Errorf("%s: no label app.kubernetes.io/part-of=mvpctl", o.key())
		}
	}
	if len(d.Spec.Selector.MatchLabels) == 0 || len(svc.Spec.Selector) == 0 {
		t.Error("the Deployment and the Service must select their pods by label")
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the Deployment selects %s=%s, which its pods do not carry", k, v)
		}
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: d.Spec.Template.Spec.ServiceAccountName, Namespace: d.Namespace}
	var sa corev1.ServiceAccount
	if theObject(t, objs, "ServiceAccount", &sa); sa.Name != subject.Name || sa.Namespace != subject.Namespace {
		t.Errorf("the Deployment runs as %s/%s, the base creates %s/%s", subject.Namespace, subject.Name, sa.Namespace, sa.Name)
	}
	rbac := newRBACObjects("kustomize build deploy/"+baseDir, subject)
	for i, o := range objs {
		if o.kind != "Deployment" && o.kind != "Service" {
			rbac.add(t, i+1, o.doc)
		}
	}
	rbac.checkGrants(t)
}

// TestKustomizePrometheusOperator renders deploy/exporter-prometheus-operator: the base as it
// is, and the ServiceMonitor and PrometheusRule of the component, which carry the label a
// Prometheus selects them by (the base's objects do not) and scrape the base's Service; the
// base check of kinds fails on it, as it must.
func TestKustomizePrometheusOperator(t *testing.T) {
	base := render(t, filesys.MakeFsOnDisk(), baseDir)
	objs := render(t, filesys.MakeFsOnDisk(), operatorDir)
	docs := map[string]string{}
	for _, o := range objs {
		docs[o.key()] = o.doc
	}
	for _, o := range base {
		if docs[o.key()] != o.doc {
			t.Errorf("%s differs from the base's, or is missing", o.key())
		}
		delete(docs, o.key())
	}
	var added []string
	for k := range docs {
		added = append(added, k)
	}
	sort.Strings(added)
	if want := []string{"PrometheusRule mvpctl/mvpctl-exporter", "ServiceMonitor mvpctl/mvpctl-exporter"}; strings.Join(added, ", ") != strings.Join(want, ", ") {
		t.Errorf("the overlay adds %q to the base, want %q", added, want)
	}
	if bad := notEveryCluster(objs); len(bad) != 2 {
		t.Errorf("the check of kinds found %q in the overlay, want the two Prometheus Operator objects", bad)
	}
	release := operatorLabel(t)
	for _, o := range objs {
		_, isOperator := map[string]bool{"ServiceMonitor": true, "PrometheusRule": true}[o.kind]
		if got, ok := o.labels["release"]; isOperator != ok || ok && got != release {
			t.Errorf("%s: release label %q (set: %v), want %q on the Prometheus Operator's objects only", o.key(), got, ok, release)
		}
		if isOperator && o.labels["app.kubernetes.io/name"] != "mvpctl-exporter" {
			t.Errorf("%s: no label app.kubernetes.io/name=mvpctl-exporter", o.key())
		}
	}
	var sm serviceMonitor
	theObject(t, objs, "ServiceMonitor", &sm)
	var svc corev1.Service
	theObject(t, objs, "Service", &svc)
	if sm.Metadata.Namespace != svc.Namespace || len(sm.Spec.Selector.MatchLabels) == 0 {
		t.Errorf("the ServiceMonitor (namespace %q) must select the Service of namespace %q by label", sm.Metadata.Namespace, svc.Namespace)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the rendered Service does not carry", k, v)
		}
	}
	var pr struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   any
		Spec       any
	}
	theObject(t, objs, "PrometheusRule", &pr)
	var file struct{ Spec any }
	readYAML(t, filepath.Join(componentDir, "prometheusrule.yaml"), &file)
	if a, b := mustJSON(t, pr.Spec), mustJSON(t, file.Spec); a != b {
		t.Error("the rendered PrometheusRule's groups differ from prometheusrule.yaml's")
	}
}

// TestKustomizeOperatorLabelInOnePlace: the release label is set by one line: the same tree
// with that value changed renders both objects with the new value.
func TestKustomizeOperatorLabelInOnePlace(t *testing.T) {
	fsys := deployInMemory(t, "/src/mvpctl/deploy", func(f string, data []byte) []byte {
		if f != filepath.Join(componentDir, "kustomization.yaml") {
			return data
		}
		old := "value: " + operatorLabel(t) + "\n"
		if strings.Count(string(data), old) != 1 {
			t.Fatalf("%s: %q is not there once", f, old)
		}
		return []byte(strings.Replace(string(data), old, "value: prometheus-eu-1\n", 1))
	})
	checkReleaseLabel(t, render(t, fsys, filepath.Join("/src/mvpctl/deploy", operatorDir)), "prometheus-eu-1")
}

// TestKustomizeDocsOverlay: the overlay of docs/exporter.md, which composes the base and the
// component from a clone and changes the release label and the image, renders with both.
func TestKustomizeDocsOverlay(t *testing.T) {
	fsys := deployInMemory(t, "/src/mvpctl/deploy", nil)
	block := markdownBlock(t, "../docs/exporter.md", "yaml", "components:")
	if err := fsys.WriteFile("/src/site/kustomization.yaml", []byte(block)); err != nil {
		t.Fatal(err)
	}
	var k struct{ Patches []struct{ Patch string } }
	readYAMLString(t, block, &k)
	var ops []struct{ Value string }
	if len(k.Patches) != 1 || yaml.Unmarshal([]byte(k.Patches[0].Patch), &ops) != nil || len(ops) != 1 {
		t.Fatalf("docs/exporter.md's overlay: want one patch of one op, got %+v", k.Patches)
	}
	objs := render(t, fsys, "/src/site")
	checkReleaseLabel(t, objs, ops[0].Value)
	var d appsv1.Deployment
	theObject(t, objs, "Deployment", &d)
	want := "registry.example/mvpctl:" + makefileVar(t, "IMAGE_TAG")
	if got := d.Spec.Template.Spec.Containers[0].Image; got != want {
		t.Errorf("docs/exporter.md's overlay runs %s, want %s (its images: entry)", got, want)
	}
}

// deployInMemory copies the kustomizations of deploy/ under root of an in-memory file
// system, each file through edit (when not nil).
func deployInMemory(t *testing.T, root string, edit func(file string, data []byte) []byte) filesys.FileSystem {
	t.Helper()
	fsys := filesys.MakeFsInMemory()
	for _, dir := range []string{baseDir, componentDir, operatorDir} {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if edit != nil {
				data = edit(f, data)
			}
			if err := fsys.WriteFile(filepath.Join(root, f), data); err != nil {
				t.Fatal(err)
			}
		}
	}
	return fsys
}

// checkReleaseLabel: the two Prometheus Operator objects, and no other, carry release=want.
func checkReleaseLabel(t *testing.T, objs []object, want string) {
	t.Helper()
	n := 0
	for _, o := range objs {
		if v, ok := o.labels["release"]; ok {
			n++
			if v != want {
				t.Errorf("%s: release=%s, want %s", o.key(), v, want)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d objects carry the release label, want 2", n)
	}
}

func readYAMLString(t *testing.T, doc string, v any) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(doc), v); err != nil {
		t.Fatal(err)
	}
}

// operatorLabel is the value the component's patch gives the release label.
func operatorLabel(t *testing.T) string {
	t.Helper()
	var k struct {
		Patches []struct{ Patch string }
	}
	readYAML(t, filepath.Join(componentDir, "kustomization.yaml"), &k)
	var ops []struct{ Op, Path, Value string }
	if len(k.Patches) != 1 {
		t.Fatalf("%s: %d patches, want the one that sets the release label", componentDir, len(k.Patches))
	}
	if err := yaml.Unmarshal([]byte(k.Patches[0].Patch), &ops); err != nil || len(ops) != 1 || ops[0].Path != "/metadata/labels/release" || ops[0].Value == "" {
		t.Fatalf("%s: patch %+v (%v): want one op setting /metadata/labels/release", componentDir, ops, err)
	}
	return ops[0].Value
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
