package clientevidence

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestManagedFields: the objects' metadata is listed as a PartialObjectMetadataList, page by
// page (limit and continue), up to the cap, and summed by manager and apiVersion; a 403 is
// the GVR's error, and the next GVR is read all the same.
func TestManagedFields(t *testing.T) {
	const total = 1234
	var pages int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != metadataListAccept {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		if strings.HasPrefix(r.URL.Path, "/api/v1/secrets") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`)
			return
		}
		pages++
		if r.URL.Path != "/apis/networking.k8s.io/v1/ipaddresses" {
			t.Errorf("listed %s, want the other version's path", r.URL.Path)
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		list := metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"}}
		for i := from; i < min(from+limit, total); i++ {
			when := metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute))
			item := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint(i), ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "networking.k8s.io/v1", Time: &when}}}}
			if i%100 == 0 {
				item.ManagedFields = append(item.ManagedFields, metav1.ManagedFieldsEntry{Manager: "helm", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "networking.k8s.io/v1beta1", Time: &when})
			}
			list.Items = append(list.Items, item)
		}
		if from+limit < total {
			list.Continue = strconv.Itoa(from + limit)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	}))
	defer ts.Close()
	secrets := snapshot.GVR{Version: "v1", Resource: "secrets"}
	ips := snapshot.GVR{Group: "networking.k8s.io", Version: "v1beta1", Resource: "ipaddresses"}
	reqs := []snapshot.ManagedFieldsRequest{{GVR: secrets, Via: secrets}, {GVR: ips, Via: snapshot.GVR{Group: "networking.k8s.io", Version: "v1", Resource: "ipaddresses"}}}
	for _, tc := range []struct {
		cap, objects, pages, helm int
		capped                    bool
	}{
		{0, total, 3, 13, false},
		{1000, 1000, 2, 10, true},
	} {
		pages = 0
		reads, err := ManagedFields(context.Background(), through(ts.URL), reqs, tc.cap, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(reads) != 2 || !strings.Contains(reads[0].Error, "403") || reads[0].Objects != 0 {
			t.Fatalf("secrets: %+v", reads[0])
		}
		ip := reads[1]
		if ip.Error != "" || ip.Objects != tc.objects || ip.Capped != tc.capped || pages != tc.pages {
			t.Errorf("cap %d: %d objects (capped %v) in %d pages, error %q; want %d (capped %v) in %d", tc.cap, ip.Objects, ip.Capped, pages, ip.Error, tc.objects, tc.capped, tc.pages)
		}
		var helm *snapshot.FieldManager
		for i := range ip.Managers {
			if ip.Managers[i].Manager == "helm" {
				helm = &ip.Managers[i]
			}
		}
		if helm == nil || helm.Objects != tc.helm || helm.APIVersion != "networking.k8s.io/v1beta1" || helm.Operation != "Apply" || helm.Newest == nil {
			t.Errorf("cap %d: helm %+v, want %d objects", tc.cap, helm, tc.helm)
		}
	}
}
