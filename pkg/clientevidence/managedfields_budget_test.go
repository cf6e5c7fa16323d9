package clientevidence

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestManagedFieldsBudget: the managedFields of every GVR are taken from one budget, page by
// page: each GVR here is under its own cap, the second reaches the budget's objects and is
// returned with what was read before the page that did not fit, with the budget's error; the
// third is never asked for.
func TestManagedFieldsBudget(t *testing.T) {
	const perResource = replay.MaxEvidenceObjects * 3 / 4
	var mu sync.Mutex
	served := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		list := metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
			Items: make([]metav1.PartialObjectMetadata, limit), ListMeta: metav1.ListMeta{Continue: strconv.Itoa(from + limit)}}
		for i := range list.Items {
			list.Items[i].Name = strconv.Itoa(from + i)
		}
		mu.Lock()
		served[r.URL.Path] += limit
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	}))
	defer ts.Close()
	var reqs []snapshot.ManagedFieldsRequest
	for _, r := range []string{"widgets", "gadgets", "gizmos"} {
		g := snapshot.GVR{Group: "example.com", Version: "v1", Resource: r}
		reqs = append(reqs, snapshot.ManagedFieldsRequest{GVR: g, Via: g})
	}
	reads, err := ManagedFields(context.Background(), through(ts.URL), reqs, perResource, replay.NewBudget())
	cut, ok := replay.AsBudgetError(err)
	if !ok || cut.At != "managedFields of example.com/v1/gadgets" {
		t.Fatalf("err = %v, want the budget's, cut in the second GVR", err)
	}
	if len(reads) != 2 || reads[0].Objects != perResource || !reads[0].Capped || reads[1].Objects != replay.MaxEvidenceObjects-perResource || reads[1].Error != "" {
		t.Fatalf("reads %+v, want the first whole to its cap and the second up to the budget", reads)
	}
	if n := served["/apis/example.com/v1/gizmos"]; n != 0 {
		t.Errorf("the GVR after the cut was listed (%d objects)", n)
	}
	if n := served["/apis/example.com/v1/gadgets"]; n != replay.MaxEvidenceObjects-perResource+ManagedFieldsPage {
		t.Errorf("the cut GVR was served %d objects, want the budget's rest and one page", n)
	}
}
