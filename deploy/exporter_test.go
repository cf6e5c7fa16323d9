package deploy_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

const exporterDir = "exporter"

// exporterDoc reads one document of the kustomize base.
func exporterDoc(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exporterDir, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// TestExporterRBAC: the exporter's service account gets what the live commands read (the
// watch among them) and nothing more, as deploy/rbac's identity does.
func TestExporterRBAC(t *testing.T) {
	o := loadRBACFile(t, filepath.Join(exporterDir, "rbac.yaml"),
		rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "mvpctl-exporter", Namespace: "mvpctl"})
	o.checkGrants(t)
}

// TestExporterKustomization: the base lists every manifest of its directory (and nothing
// else), and its image is the Deployment's.
func TestExporterKustomization(t *testing.T) {
	var k struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Resources  []string
		Labels     []any
		Images     []struct {
			Name, NewName, NewTag string
		}
	}
	exporterDoc(t, "kustomization.yaml", &k)
	files, err := filepath.Glob(filepath.Join(exporterDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var manifests []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && b != "rules_test.yaml" {
			manifests = append(manifests, b)
		}
	}
	got := slices.Clone(k.Resources)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(manifests, " ") {
		t.Errorf("kustomization resources %q, the directory's manifests %q", got, manifests)
	}
	var d appsv1.Deployment
	exporterDoc(t, "deployment.yaml", &d)
	if len(k.Images) != 1 || len(d.Spec.Template.Spec.Containers) != 1 || k.Images[0].Name != d.Spec.Template.Spec.Containers[0].Image {
		t.Errorf("kustomization images %+v do not name the Deployment's image", k.Images)
	}
}

// TestExporterDeployment: one replica, non-root, read-only root filesystem, no privilege
// escalation, resource requests; the exporter mode on the port the Service and the probes
// name; the service account the RBAC binds; no kubeconfig (in-cluster configuration).
func TestExporterDeployment(t *testing.T) {
	var d appsv1.Deployment
	exporterDoc(t, "deployment.yaml", &d)
	var svc corev1.Service
	exporterDoc(t, "service.yaml", &svc)
	checkExporterDeployment(t, d, svc)
	checkServiceMonitor(t, svc)
}

// checkExporterDeployment checks the Deployment and its Service as a reviewer would: one
// replica, non-root, read-only root filesystem, no privilege escalation, resource requests,
// the exporter mode on the port the Service and the probes name, the service account the
// RBAC binds, no kubeconfig; the Service selects the pods.
func checkExporterDeployment(t *testing.T, d appsv1.Deployment, svc corev1.Service) {
	t.Helper()
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	sc, psc := c.SecurityContext, spec.SecurityContext
	switch {
	case d.Spec.Replicas == nil || *d.Spec.Replicas != 1:
		t.Error("want one replica")
	case psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0:
		t.Error("the pod must run as a non-root user")
	case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("the root filesystem must be read-only")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL"):
		t.Error("no privilege escalation, every capability dropped")
	case c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero():
		t.Error("cpu and memory requests must be set")
	case spec.ServiceAccountName != "mvpctl-exporter":
		t.Errorf("service account %q, want the one rbac.yaml binds", spec.ServiceAccountName)
	}
	args := strings.Join(c.Args, " ")
	if c.Args[0] != "watch" || !strings.Contains(args, "--metrics-address=:9090") || strings.Contains(args, "kubeconfig") {
		t.Errorf("args %q: want watch --metrics-address=:9090, no kubeconfig", args)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9090 || c.Ports[0].Name != "metrics" {
		t.Errorf("ports %+v: want metrics 9090", c.Ports)
	}
	for probe, path := range map[*corev1.Probe]string{c.ReadinessProbe: "/readyz", c.LivenessProbe: "/healthz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "metrics" {
			t.Errorf("want a probe of %s on the metrics port, got %+v", path, probe)
		}
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, which the pods do not carry", k, v)
		}
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "metrics" || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("Service ports %+v: want metrics → metrics", svc.Spec.Ports)
	}
}

// serviceMonitor is what the tests read of a Prometheus Operator ServiceMonitor.
type serviceMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   struct {
		Name, Namespace string
		Labels          map[string]string
	}
	Spec struct {
		Selector  struct{ MatchLabels map[string]string }
		Endpoints []struct{ Port, Interval string }
	}
}

// checkServiceMonitor: the ServiceMonitor scrapes the port named metrics of the Service.
func checkServiceMonitor(t *testing.T, svc corev1.Service) {
	t.Helper()
	var sm serviceMonitor
	exporterDoc(t, "prometheus-operator/servicemonitor.yaml", &sm)
	if sm.APIVersion != "monitoring.coreos.com/v1" || sm.Kind != "ServiceMonitor" || len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" {
		t.Errorf("ServiceMonitor %+v: want one endpoint on the port named metrics", sm)
	}
	for k, v := range sm.Spec.Selector.MatchLabels {
		if svc.Labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service does not carry", k, v)
		}
	}
}

// alertRule is one rule of the PrometheusRule.
type alertRule struct {
	Alert       string
	Expr        string
	For         string
	Labels      map[string]string
	Annotations map[string]string
}

// exporterRules reads the PrometheusRule's groups.
func exporterRules(t *testing.T) []alertRule {
	t.Helper()
	var pr struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   struct {
			Name, Namespace string
			Labels          map[string]string
		}
		Spec struct {
			Groups []struct {
				Name  string
				Rules []alertRule
			}
		}
	}
	exporterDoc(t, "prometheus-operator/prometheusrule.yaml", &pr)
	if pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != "PrometheusRule" {
		t.Fatalf("prometheus-operator/prometheusrule.yaml: %s %s", pr.APIVersion, pr.Kind)
	}
	var rules []alertRule
	for _, g := range pr.Spec.Groups {
		rules = append(rules, g.Rules...)
	}
	return rules
}

// TestExporterAlerts: every alert has a severity a pager routes on, a summary, a description
// that names the server and GVR its expression keeps, and a runbook section in
// docs/exporter.md; every metric it reads is one the exporter exports (or the apiservers' and
// Prometheus' own). The issues the check exists for are caught.
func TestExporterAlerts(t *testing.T) {
	rules := exporterRules(t)
	exported := exportedMetrics(t)
	doc, err := os.ReadFile("../docs/exporter.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(string(doc), -1) {
		anchors[githubAnchor(m[1])] = true
	}
	byClause := regexp.MustCompile(`\bby \(([^)]*)\)`)
	if len(rules) < 6 {
		t.Fatalf("%d alerts", len(rules))
	}
	for _, r := range rules {
		if r.Labels["severity"] != "critical" && r.Labels["severity"] != "warning" {
			t.Errorf("%s: severity %q, want critical or warning", r.Alert, r.Labels["severity"])
		}
		if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
			t.Errorf("%s: no summary or description", r.Alert)
		}
		runbook := r.Annotations["runbook_url"]
		anchor := strings.ToLower(r.Alert)
		if !strings.HasSuffix(runbook, "/docs/exporter.md#"+anchor) || !anchors[anchor] {
			t.Errorf("%s: runbook %q: want docs/exporter.md#%s, a section of docs/exporter.md", r.Alert, runbook, anchor)
		}
		if m := byClause.FindStringSubmatch(r.Expr); m != nil {
			for _, l := range []string{"server", "resource", "apiservice"} {
				if strings.Contains(m[1], l) && !strings.Contains(r.Annotations["description"], "$labels."+l) {
					t.Errorf("%s: the description does not name the %s the alert is about", r.Alert, l)
				}
			}
		}
		if unknown := unknownMetrics(r.Expr, exported); len(unknown) > 0 {
			t.Errorf("%s reads %q, which the exporter does not export", r.Alert, unknown)
		}
	}
	if got := unknownMetrics(`mvpctl_gvrs_at_risk > 0`, exported); len(got) != 1 {
		t.Errorf("a metric the exporter does not export went unnoticed: %q", got)
	}
}

// githubAnchor is the anchor GitHub gives a heading.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
