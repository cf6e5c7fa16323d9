package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestProbeCutAnswers: two v1.36.3 apiservers, kas-b with batch/v1 off, and in one namespace
// a ConfigMap of 900 KB of binaryData and a Job carrying a 1.1 MB environment variable: the
// list of each (one item) is longer than probe.MaxBody. probe reads each list to the bound,
// says so on the answer (truncated) and in the summary, and still classifies it by its
// status: configmaps local on both servers, jobs proxied by kas-b to kas-a — every
// measurement a match (exit 0). The watches start at the cut lists' resourceVersion, so
// they carry no initial state and are not cut.
func TestProbeCutAnswers(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.36 control plane")
	}
	mvpctlBinary(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(cp.Server("kas-a").RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "probe-cut"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binary := make([]byte, 900_000) // base64 in JSON: 1.2 MB
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"},
		BinaryData: map[string][]byte{"blob": binary}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Env: []corev1.EnvVar{{Name: "PAD", Value: strings.Repeat("x", 1_100_000)}}}},
	}}}}
	if _, err := cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	rep, r := probeCmdRun(t, cp.Server("kas-b").Kubeconfig, ExitOKForProbe, "--resource", "configmaps,jobs.batch", "-n", ns)
	if rep.Summary.Results != 12 || rep.Summary.Match != 12 || rep.Partial {
		t.Fatalf("summary %+v, partial %t: want 12 matches", rep.Summary, rep.Partial)
	}
	cut := 0
	for _, res := range rep.Results {
		n, l := res.Observed.Normal, res.Observed.ForcedLocal
		wantNormal := res.Verb == probe.VerbList
		wantLocal := wantNormal && !(res.Server == "kas-b" && res.Name == "batch/v1/jobs") // kas-b's own 404
		if n.Truncated != wantNormal || l.Truncated != wantLocal {
			t.Errorf("%s %s %s: truncated %t/%t (normal/forced local), want %t/%t", res.Server, res.Name, res.Verb, n.Truncated, l.Truncated, wantNormal, wantLocal)
		}
		if n.Truncated || l.Truncated {
			cut++
		}
		want := mvp.Local
		if res.Server == "kas-b" && res.Name == "batch/v1/jobs" {
			want = mvp.Proxied
		}
		if res.Observed.Outcome != want {
			t.Errorf("%s %s %s: observed %s, want %s", res.Server, res.Name, res.Verb, res.Observed.Text, want)
		}
		if res.Verb == probe.VerbWatch && !strings.Contains(res.Path, "&resourceVersion=") {
			t.Errorf("%s %s: watch %s does not start at the list's resourceVersion", res.Server, res.Name, res.Path)
		}
	}
	if cut != 4 || rep.Summary.Truncated != 4 {
		t.Errorf("%d results with a cut answer, summary says %d: want 4 (the lists)", cut, rep.Summary.Truncated)
	}
	if s := string(r.Stdout); strings.Count(s, `"truncated": true`) != 7 {
		t.Errorf("%d answers marked truncated in the JSON report, want 7", strings.Count(s, `"truncated": true`))
	}
}
