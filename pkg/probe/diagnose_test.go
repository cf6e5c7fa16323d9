package probe

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestDiagnose(t *testing.T) {
	srv := &snapshot.Server{Name: "mvc-a", Version: "v1.36.3",
		PeerProxy: snapshot.PeerProxy{PeerDiscoverySyncErrors: map[string]float64{"fetch_discovery": 7}}}
	for _, tc := range []struct {
		predicted mvp.Outcome
		observed  mvp.Outcome
		want      string // first cause, "" for none
	}{
		{mvp.Proxied, mvp.NotFound, "tls-trust"},
		{mvp.NotFound, mvp.Proxied, "snapshot-behind"},
		{mvp.Local, mvp.Local, ""},
	} {
		res := &Result{Predicted: Prediction{Outcome: tc.predicted, Peers: []string{"mvc-b"}}}
		got := diagnose(srv, res, &Measured{Outcome: tc.observed})
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s/%s: diagnosis %v, want none", tc.predicted, tc.observed, got)
		case tc.want != "" && (len(got) == 0 || got[0].Name != tc.want):
			t.Errorf("%s/%s: diagnosis %v, want %s first", tc.predicted, tc.observed, got, tc.want)
		case tc.want == "tls-trust" && !strings.Contains(got[0].Text, "mvc-b"):
			t.Errorf("the cause does not name the peer: %s", got[0].Text)
		}
	}
}
