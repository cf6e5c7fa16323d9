package route

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestStatedConfigurationInSteps: a server whose gate and filter were not observed, but whose
// installer states its flags, is decided on them without an assumption, and its steps name the
// source; without the statement the same decision is marked assumed.
func TestStatedConfigurationInSteps(t *testing.T) {
	s, err := snapshot.LoadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := &s.Servers[0]
	srv.PeerProxy.GateEnabled, srv.PeerProxy.FilterInstalled = nil, nil
	req, err := ParseRequest("GET", "/apis/apps/v1/deployments")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stated       *snapshot.StatedFlags
		want         string
		wantInferred bool
	}{
		{stated: &snapshot.StatedFlags{Source: "manifest /etc/kubernetes/manifests/kube-apiserver.yaml"}, want: "[stated: manifest /etc/kubernetes/manifests/kube-apiserver.yaml]"},
		{stated: &snapshot.StatedFlags{Source: "manifest m.yaml", Flags: []snapshot.Flag{{Name: "feature-gates", Value: "UnknownVersionInteroperabilityProxy=true"}, {Name: "peer-ca-file", Value: "/ca.crt"}}}, want: "proxy filter installed (gate on, --peer-ca-file set) [stated: manifest m.yaml]"},
		{want: "[assumed: ", wantInferred: true},
	} {
		srv.Stated = tc.stated
		d, err := NewRouter(s).Decide(srv.Name, req)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, st := range d.Steps {
			texts = append(texts, st.Text)
		}
		steps := strings.Join(texts, "\n")
		var plain []string
		for _, st := range d.Plain.Steps {
			plain = append(plain, fmt.Sprint(st))
		}
		if !strings.Contains(steps, tc.want) || d.Inferred != tc.wantInferred || !tc.wantInferred && !strings.Contains(strings.Join(plain, "\n"), "[stated: ") {
			t.Errorf("stated %+v: inferred %t, steps:\n%s\nwant %q", tc.stated, d.Inferred, steps, tc.want)
		}
	}
}
