package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// preflight names a replayed v1beta1 client with its fix: the GA version, or the escape.
func TestPreflight138RemovedClient(t *testing.T) {
	useEmbedded(t)
	servers := []simulate.ServerVersion{{Name: "a", Version: "1.37", RuntimeConfig: "resource.k8s.io/v1beta1=true"}, {Name: "b", Version: "1.37", RuntimeConfig: "resource.k8s.io/v1beta1=true"}}
	start, err := simulate.FromProfiles(servers, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := simulate.UpgradePlan(start, "1.38", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := replay.NewReader(strings.NewReader("GET /apis/resource.k8s.io/v1beta1/namespaces/ml/resourceclaims\nGET /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims\n"), "requests.txt", replay.FormatRequests)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.38", Traffic: []*replay.Reader{tr}, TrafficSource: "requests.txt", TrafficFormat: replay.FormatRequests})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Provisional) != 1 {
		t.Errorf("provisional: %+v", rep.Provisional)
	}
	var found *Finding
	for i, f := range rep.Findings {
		if f.Check == CheckTrafficRemoved.ID && f.Subject == "resource.k8s.io/v1beta1/resourceclaims" {
			found = &rep.Findings[i]
		}
	}
	if found == nil || found.Severity != Blocking {
		t.Fatalf("no blocking %s for the v1beta1 client: %+v", CheckTrafficRemoved.ID, rep.Findings)
	}
	if want := mvp.RemovedFix("resource.k8s.io/v1beta1", "resource.k8s.io/v1"); found.Hint != want {
		t.Errorf("hint %q\nwant %q", found.Hint, want)
	}
}
