package clientevidence

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestLastApplied(t *testing.T) {
	for _, c := range []struct {
		name        string
		annotations map[string]string
		want        snapshot.LastApplied
		ok, bad     bool
	}{
		{"none", nil, snapshot.LastApplied{}, false, false},
		{"other annotations only", map[string]string{"a": "b"}, snapshot.LastApplied{}, false, false},
		{"kubectl apply's", map[string]string{LastAppliedAnnotation: `{"apiVersion":"networking.k8s.io/v1beta1","kind":"IPAddress","metadata":{"annotations":{},"name":"10.96.0.99"},"spec":{}}` + "\n"},
			snapshot.LastApplied{Namespace: "ns", Name: "n", APIVersion: "networking.k8s.io/v1beta1", Kind: "IPAddress"}, true, false},
		{"a control character, as data", map[string]string{LastAppliedAnnotation: `{"apiVersion":"apps/v1\u001b[2J","kind":"Deployment"}`},
			snapshot.LastApplied{Namespace: "ns", Name: "n", APIVersion: `apps/v1\x1b[2J`, Kind: "Deployment"}, true, false},
		{"not JSON", map[string]string{LastAppliedAnnotation: "apiVersion: v1"}, snapshot.LastApplied{}, true, true},
		{"no kind", map[string]string{LastAppliedAnnotation: `{"apiVersion":"v1"}`}, snapshot.LastApplied{}, true, true},
		{"apiVersion not a string", map[string]string{LastAppliedAnnotation: `{"apiVersion":1,"kind":"Pod"}`}, snapshot.LastApplied{}, true, true},
		{"an apiVersion past the bound", map[string]string{LastAppliedAnnotation: `{"apiVersion":"` + strings.Repeat("g", maxLastAppliedField) + `/v1","kind":"Pod"}`}, snapshot.LastApplied{}, true, true},
		{"past 256 KiB", map[string]string{LastAppliedAnnotation: `{"apiVersion":"v1","kind":"Pod","data":"` + strings.Repeat("x", maxLastApplied) + `"}`}, snapshot.LastApplied{}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok, bad := lastApplied(c.annotations, "ns", "n")
			if got != c.want || ok != c.ok || bad != c.bad {
				t.Errorf("got %+v ok %v unreadable %v, want %+v %v %v", got, ok, bad, c.want, c.ok, c.bad)
			}
		})
	}
}

// TestManagedFieldsLastApplied: the same metadata read records each object's last-applied
// apiVersion and kind, and counts the annotations it cannot read.
func TestManagedFieldsLastApplied(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list := metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"}}
		for _, o := range []struct{ name, annotation string }{
			{"old", `{"apiVersion":"networking.k8s.io/v1beta1","kind":"IPAddress"}`},
			{"current", `{"apiVersion":"networking.k8s.io/v1","kind":"IPAddress"}`},
			{"garbled", `{"apiVersion":`},
			{"unapplied", ""},
		} {
			item := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: o.name}}
			if o.annotation != "" {
				item.Annotations = map[string]string{LastAppliedAnnotation: o.annotation}
			}
			list.Items = append(list.Items, item)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	}))
	defer ts.Close()
	ips := snapshot.GVR{Group: "networking.k8s.io", Version: "v1beta1", Resource: "ipaddresses"}
	reads, err := ManagedFields(context.Background(), through(ts.URL), []snapshot.ManagedFieldsRequest{{GVR: ips, Via: ips}}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []snapshot.LastApplied{{Name: "old", APIVersion: "networking.k8s.io/v1beta1", Kind: "IPAddress"}, {Name: "current", APIVersion: "networking.k8s.io/v1", Kind: "IPAddress"}}
	if got := reads[0]; got.Objects != 4 || !reflect.DeepEqual(got.LastApplied, want) || got.LastAppliedUnreadable != 1 {
		t.Errorf("%d objects, last applied %+v, %d unreadable; want 4, %+v, 1", got.Objects, got.LastApplied, got.LastAppliedUnreadable, want)
	}
}
