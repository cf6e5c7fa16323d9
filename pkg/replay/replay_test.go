package replay

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

func TestReplay(t *testing.T) {
	s := planes.Three(t, "1.36")
	steps, _ := simulate.UpgradePlan(s, "1.37", nil)
	sim, err := simulate.Run(s, steps)
	if err != nil {
		t.Fatal(err)
	}
	log := strings.Join([]string{
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"RequestReceived","verb":"list","requestURI":"/apis/old.k8s.io/v1beta1/gadgets","userAgent":"ctl"}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"list","requestURI":"/apis/old.k8s.io/v1beta1/gadgets","userAgent":"ctl"}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/namespaces/x/pods/p","userAgent":"kubelet"}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"get","requestURI":"/healthz","userAgent":"lb"}`,
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create","requestURI":"/apis/new.k8s.io/v1/namespaces/x/widgets","userAgent":"ctl"}`,
		`not json`,
		`{"kind":"Pod"}`,
		``,
	}, "\n")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(log))
	w.Close()
	tr, err := NewReader(&gz, "audit.log.gz", FormatAuditLog)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Replay(sim, tr, "audit.log.gz", FormatAuditLog)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 4 || rep.NonResource != 1 || rep.Malformed != 2 || rep.Skipped != 1 {
		t.Errorf("requests %d nonResource %d malformed %d skipped %d", rep.Requests, rep.NonResource, rep.Malformed, rep.Skipped)
	}
	if len(rep.MalformedExamples) != 2 || !strings.HasPrefix(rep.MalformedExamples[0], "audit.log.gz:6: not JSON") {
		t.Errorf("examples = %v", rep.MalformedExamples)
	}
	byGVR := map[string]GVRTraffic{}
	for _, g := range rep.GVRs {
		byGVR[g.GVR] = g
	}
	gadgets := byGVR["old.k8s.io/v1beta1/gadgets"]
	if gadgets.Requests != 1 || !gadgets.Removed || gadgets.AtRisk == 0 {
		t.Errorf("gadgets: %+v", gadgets)
	}
	if pods := byGVR["v1/pods"]; pods.AtRisk != 0 {
		t.Errorf("pods are served everywhere: %+v", pods)
	}
	if rep.UserAgents[0].UserAgent != "ctl" || rep.UserAgents[0].AtRisk == 0 {
		t.Errorf("user agents: %+v", rep.UserAgents)
	}
	// Every request is evaluated on every reachable server at every step.
	start := rep.Steps[0]
	var total int64
	for _, c := range start.ByServ {
		total += c.Local + c.Proxied + c.NotFound + c.Unavailable
	}
	if total != 3*3 {
		t.Errorf("step 0 evaluated %d request×server pairs, want 9", total)
	}
}

func TestRequestListTraffic(t *testing.T) {
	tr, _ := NewReader(strings.NewReader("# comment\nGET /api/v1/pods\n\nbad line here\nPOST /apis/batch/v1/namespaces/x/jobs\n"), "reqs.txt", FormatRequests)
	var got []string
	for {
		r, err := tr.Next()
		if err != nil {
			break
		}
		got = append(got, r.Method+" "+r.Path)
	}
	if !reflect.DeepEqual(got, []string{"GET /api/v1/pods", "POST /apis/batch/v1/namespaces/x/jobs"}) || tr.Malformed != 1 {
		t.Errorf("got %v, malformed %d (%v)", got, tr.Malformed, tr.Examples)
	}
}

func TestTrafficLongLine(t *testing.T) {
	long := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/pods","requestObject":"` + strings.Repeat("x", maxLine) + `"}`
	in := long + "\nGET /api/v1/pods\n"
	tr, _ := NewReader(strings.NewReader(in), "big", FormatRequests)
	r, err := tr.Next()
	if err != nil || r.Path != "/api/v1/pods" || tr.Malformed != 1 {
		t.Errorf("got %+v %v, malformed %d %v", r, err, tr.Malformed, tr.Examples)
	}
}
