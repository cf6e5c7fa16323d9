package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestManagedFieldsEvidence: a field manager is a client of the GVR at risk only when it
// wrote with that GVR's own group/version; an unreadable list is a source not read, saying why.
func TestManagedFieldsEvidence(t *testing.T) {
	ips := snapshot.GVR{Group: "networking.k8s.io", Version: "v1beta1", Resource: "ipaddresses"}
	cidrs := snapshot.GVR{Group: "networking.k8s.io", Version: "v1beta1", Resource: "servicecidrs"}
	when := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	ev := replay.ManagedFieldsEvidence([]snapshot.ManagedFields{
		{GVR: ips, Via: snapshot.GVR{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"}, Objects: 40, Cap: 50000, Managers: []snapshot.FieldManager{
			{Manager: "kube-apiserver", APIVersion: "networking.k8s.io/v1", Operation: "Update", Objects: 38},
			{Manager: "argocd-controller", APIVersion: "networking.k8s.io/v1beta1", Operation: "Apply", Objects: 2, Newest: &when}}},
		{GVR: cidrs, Via: cidrs, Error: "GET /apis/networking.k8s.io/v1beta1/servicecidrs: 403 Forbidden"},
	})
	got := clientsText(ev.ClientsOf("networking.k8s.io/v1beta1/"))
	if want := `field manager "argocd-controller" (apply of 2 object(s) with networking.k8s.io/v1beta1, last 2026-11-20T08:00:00Z)`; got != want {
		t.Errorf("clients %q, want %q", got, want)
	}
	if m := ev.Missing(); !strings.Contains(m, "managedFields of networking.k8s.io/v1beta1/servicecidrs: GET /apis/networking.k8s.io/v1beta1/servicecidrs: 403 Forbidden") {
		t.Errorf("missing %q", m)
	}
	if r := ev.Read(); !strings.Contains(r, "the managedFields of 40 object(s) of networking.k8s.io/v1beta1/ipaddresses (listed through networking.k8s.io/v1/ipaddresses)") {
		t.Errorf("read %q", r)
	}
	if ev.Covers() {
		t.Error("managedFields show writers only: they cover no GVR's readers")
	}
}

func TestOtherVersion(t *testing.T) {
	for _, tc := range []struct {
		versions []string
		v, want  string
	}{
		{[]string{"v1beta1", "v1", "v1alpha1"}, "v1beta1", "v1"},
		{[]string{"v1beta2", "v1beta1"}, "v1beta1", "v1beta2"},
		{[]string{"v1alpha1"}, "v1alpha1", ""},
	} {
		if got := otherVersion(tc.versions, tc.v); got != tc.want {
			t.Errorf("otherVersion(%v, %s) = %q, want %q", tc.versions, tc.v, got, tc.want)
		}
	}
}
