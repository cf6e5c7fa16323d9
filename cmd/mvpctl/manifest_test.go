package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

const kubeadmManifest = "../../pkg/installer/testdata/kube-apiserver.yaml"

// TestManifestBadInput: a --static-pod-manifest that cannot be used is one line naming the flag, the file
// and what is wrong, exit 1, before anything is read from a cluster.
func TestManifestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deployment := write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n")
	etcd := write("etcd.yaml", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n    command: [etcd, --data-dir=/var/lib/etcd]\n")
	broken := write("broken.yaml", "apiVersion: v1\nkind: Pod\nspec: [\n")
	huge := write("huge.yaml", "# "+strings.Repeat("x", 2<<20)+"\n")
	for _, tc := range []struct {
		arg, want string
	}{
		{"kas-a", `--static-pod-manifest "kas-a": want SERVER=FILE`},
		{"kas-a=" + filepath.Join(dir, "missing.yaml"), "--static-pod-manifest kas-a=" + filepath.Join(dir, "missing.yaml") + ": cannot read it: no such file or directory"},
		{"kas-a=" + deployment, "--static-pod-manifest kas-a=" + deployment + `: apiVersion "apps/v1" kind "Deployment": want a v1 Pod (a static pod manifest)`},
		{"kas-a=" + etcd, "--static-pod-manifest kas-a=" + etcd + ": no kube-apiserver container (containers: etcd)"},
		{"kas-a=" + broken, "--static-pod-manifest kas-a=" + broken + ": not a YAML Pod"},
		{"kas-a=" + huge, "--static-pod-manifest kas-a=" + huge + ": larger than 1 MiB: not a static pod manifest"},
		{"kas-a=" + dir, "--static-pod-manifest kas-a=" + dir + ": cannot read it: is a directory"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			stdout, stderr, code := run(t, "snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", tc.arg)
			if code != ExitError || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line containing %q", code, stdout, stderr, ExitError, tc.want)
			}
		})
	}
	for _, tc := range []struct{ file, want string }{
		{kubeadmManifest, "--kubeadm-control-plane " + kubeadmManifest + `: kind "Pod", want KubeadmControlPlane`},
		{filepath.Join(dir, "missing.yaml"), "--kubeadm-control-plane " + filepath.Join(dir, "missing.yaml") + ": cannot read it: no such file or directory"},
		{huge, "--kubeadm-control-plane " + huge + ": larger than 1 MiB: not a KubeadmControlPlane"},
		{write("kcp.yaml", "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\nkind: KubeadmControlPlane\nspec:\n  kubeadmConfigSpec:\n    clusterConfiguration:\n      apiServer:\n        extraArgs: {runtime-config: api/all=true}\n"),
			"spec.kubeadmConfigSpec.clusterConfiguration.apiServer.extraArgs is not a list of {name, value} (as controlplane.cluster.x-k8s.io/v1beta2 writes it)"},
	} {
		stdout, stderr, code := run(t, "snapshot", "--server", "https://127.0.0.1:1", "--kubeadm-control-plane", tc.file)
		if code != ExitError || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--kubeadm-control-plane %s: exit %d, stderr %q; want one line containing %q", tc.file, code, stderr, tc.want)
		}
	}
	stdout, stderr, code := run(t, "snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", "kas-a="+kubeadmManifest, "--static-pod-manifest", "kas-a="+etcd)
	if code != ExitError || stdout != "" || !strings.Contains(stderr, "kas-a already has --static-pod-manifest "+kubeadmManifest) {
		t.Errorf("a server given twice: exit %d, stderr %q", code, stderr)
	}
}

// TestSnapshotInstallerConfiguration: the kubeadm-config ConfigMap states every server's flags,
// a --static-pod-manifest one server's over it; the snapshot records both with their sources and the
// progress says which --runtime-config is stated. A forbidden ConfigMap is one warning and a
// complete snapshot (exit 0); a malformed one a warning and exit 2.
func TestSnapshotInstallerConfiguration(t *testing.T) {
	doc, err := os.ReadFile("../../pkg/installer/testdata/clusterconfiguration-v1beta3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	configMap := func(doc string) http.HandlerFunc {
		body, _ := json.Marshal(map[string]any{"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]any{"name": "kubeadm-config", "namespace": "kube-system"}, "data": map[string]string{"ClusterConfiguration": doc}})
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		}
	}
	forbidden := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(403)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps \"kubeadm-config\" is forbidden: User \"ci\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"kube-system\"","reason":"Forbidden","code":403}`)
	}
	for _, tc := range []struct {
		name       string
		answer     http.HandlerFunc
		wantCode   int
		wantStderr []string
		wantA      string // kas-a's stated source ("" none)
	}{
		{name: "read", answer: configMap(string(doc)), wantCode: ExitOK, wantA: "ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta3 ClusterConfiguration, apiServer.extraArgs)",
			wantStderr: []string{"[discovery] kas-a v1.36.3: runtime-config as stated (ConfigMap kube-system/kubeadm-config (kubeadm.k8s.io/v1beta3 ClusterConfiguration, apiServer.extraArgs)): resource.k8s.io/v1beta2=true,batch/v1=false — stated --runtime-config=resource.k8s.io/v1beta2=true,batch/v1=false, but what it serves",
				"[discovery] kas-b v1.37.1: runtime-config as stated (manifest " + kubeadmManifest + "): resource.k8s.io/v1beta2=true"}},
		{name: "forbidden", answer: forbidden, wantCode: ExitOK, wantStderr: []string{"warning: cannot read ConfigMap kube-system/kubeadm-config (403 Forbidden): the installer's configuration is not used; to use it, grant get on configmaps/kubeadm-config in kube-system"}},
		{name: "malformed", answer: configMap("kind: ClusterConfiguration\napiVersion: kubeadm.k8s.io/v1beta3\napiServer:\n  extraArgs: [a, b]\n"), wantCode: ExitIncomplete,
			wantStderr: []string{"warning: ConfigMap kube-system/kubeadm-config is malformed: data.ClusterConfiguration: kubeadm.k8s.io/v1beta3: ", "apiServer.extraArgs is not a map of flag name to value (as kubeadm.k8s.io/v1beta3 writes it)", "warning: partial result: kube-system/kubeadm-config could not be read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSnapshotFixture(t)
			for _, s := range []*dt.Server{f.a, f.b} {
				s.Override = map[string]http.HandlerFunc{"/api/v1/namespaces/kube-system/configmaps/kubeadm-config": tc.answer}
			}
			out := filepath.Join(t.TempDir(), "snap.yaml")
			var stdout, stderr bytes.Buffer
			code := Execute([]string{"snapshot", "--kubeconfig", f.kubeconfig, "-f", out, "--static-pod-manifest", "kas-b=" + kubeadmManifest},
				Streams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr, ErrIsTerminal: true})
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, stderr.String())
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			snap, err := snapshot.LoadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			a, b := snap.Find("kas-a"), snap.Find("kas-b")
			gotA := ""
			if a.Stated != nil {
				gotA = a.Stated.Source
			}
			if gotA != tc.wantA {
				t.Errorf("kas-a stated %+v, want source %q", a.Stated, tc.wantA)
			}
			if b.Stated == nil || b.Stated.Source != "manifest "+kubeadmManifest || snap.Cluster.Installer == nil || strings.Join(snap.Cluster.Installer.Manifests, ",") != "kas-b="+kubeadmManifest {
				t.Errorf("kas-b stated %+v, installer %+v", b.Stated, snap.Cluster.Installer)
			}
		})
	}
}

// TestStaticPodManifestFlagNames: --manifest, the former name of --static-pod-manifest, still
// works and says on stderr that it is deprecated; each of --static-pod-manifest and preflight's
// --manifests names the other when given what the other takes.
func TestStaticPodManifestFlagNames(t *testing.T) {
	// Read and applied: the one server read is not named kas-a, which is the error.
	_, stderr, _ := run(t, "snapshot", "--server", "https://127.0.0.1:1", "--timeout", "1s", "--manifest", "kas-a="+kubeadmManifest)
	if !strings.HasPrefix(stderr, "warning: --manifest is deprecated: use --static-pod-manifest SERVER=FILE") || strings.Contains(stderr, "unknown flag") || !strings.Contains(stderr, `no apiserver "kas-a" in the snapshot`) {
		t.Errorf("--manifest: stderr %q", stderr)
	}
	client := filepath.Join(t.TempDir(), "deploy.yaml")
	writeManifest(t, client, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	_, stderr, code := run(t, "snapshot", "--server", "https://127.0.0.1:1", "--static-pod-manifest", "kas-a="+client)
	if code != ExitError || !strings.Contains(stderr, "want a v1 Pod (a static pod manifest); the objects clients apply are preflight --manifests PATH") {
		t.Errorf("--static-pod-manifest of a Deployment: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "preflight", "--servers", "a=1.36", "--to", "1.37", "--manifests", "kas-a="+kubeadmManifest)
	if code != ExitError || !strings.Contains(stderr, "SERVER=FILE names an apiserver's static pod manifest: that is --static-pod-manifest kas-a="+kubeadmManifest) {
		t.Errorf("--manifests SERVER=FILE: exit %d, stderr %q", code, stderr)
	}
}

// TestPreflightObjectRowsJSON: -o json holds a row per object, with its verdict, release and
// replacement or closest spelling, and the summary's counts.
func TestPreflightObjectRowsJSON(t *testing.T) {
	out, _, code := run(t, "preflight", "--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--manifests", "testdata/manifests/old.yaml", "-o", "json")
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Objects []struct {
			Kind, APIVersion, Verdict, Removed, Replacement, Closest, Namespace, Name, File string
			Line                                                                            int
		}
		ObjectsSummary struct {
			Objects, Files int
			Counts         []struct {
				Verdict, Release string
				N                int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range rep.Objects {
		got = append(got, fmt.Sprintf("%s:%d %s/%s %s %s %s removed=%s replacement=%s closest=%s", o.File, o.Line, o.Namespace, o.Name, o.Kind, o.APIVersion, o.Verdict, o.Removed, o.Replacement, o.Closest))
	}
	want := []string{
		"testdata/manifests/old.yaml:1 shop/web Ingress extensions/v1beta1 removed removed=1.22 replacement=networking.k8s.io/v1 Ingress closest=",
		"testdata/manifests/old.yaml:7 /restricted PodSecurityPolicy policy/v1beta1 removed removed=1.25 replacement= closest=",
		"testdata/manifests/old.yaml:12 /fs FlowSchema flowcontrol.apiserver.k8s.io/v1beta3 removed removed=1.32 replacement=flowcontrol.apiserver.k8s.io/v1 FlowSchema closest=",
		"testdata/manifests/old.yaml:17 shop/web HorizontalPodAutoscaler autoscaling/v2beta2 removed removed=1.26 replacement=autoscaling/v2 HorizontalPodAutoscaler closest=",
		"testdata/manifests/old.yaml:23 shop/web Deployment apps/v1beat1 misspelt removed= replacement= closest=apps/v1beta1 Deployment",
		"testdata/manifests/old.yaml:29 shop/nightly Cronjob batch/v1 misspelt removed= replacement= closest=batch/v1 CronJob",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := rep.ObjectsSummary; s.Objects != 6 || s.Files != 1 || len(s.Counts) != 5 {
		t.Errorf("summary %+v", s)
	}
}
