package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// managedFields count against the run's one evidence budget: a server with more objects of
// the GVR at risk than the budget holds (and than --managed-fields-limit stops at) is read up
// to the budget's objects, no page after it is asked for, the GVR is said cut with what was
// read, and the verdict is partial. (TestManagedFieldsBudget in pkg/discover: across GVRs.)
func TestRunManagedFieldsWithinBudget(t *testing.T) {
	start, steps := upgradeTo137(t)
	const perResource = 2 * replay.MaxEvidenceObjects
	var objects atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		list := metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
			Items: make([]metav1.PartialObjectMetadata, limit)}
		for i := range list.Items {
			list.Items[i].Name = strconv.Itoa(from + i)
		}
		list.Continue = strconv.Itoa(from + limit) // always more
		objects.Add(int64(limit))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
	}))
	defer ts.Close()
	var asked int
	readMF := func(ctx context.Context, reqs []snapshot.ManagedFieldsRequest, b *replay.Budget) ([]snapshot.ManagedFields, error) {
		asked = len(reqs)
		return clientevidence.ManagedFields(ctx, discover.Options{Config: &rest.Config{Host: ts.URL}}.Evidence(), reqs, perResource, b)
	}
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", FailOn: FailOnBlocking, ManagedFields: readMF})
	if err != nil {
		t.Fatal(err)
	}
	if asked == 0 {
		t.Fatal("no GVR at risk: the test does not reach what it is about")
	}
	// Served: the budget's objects and the one page past it, which is not counted.
	if got, want := objects.Load(), int64(replay.MaxEvidenceObjects+clientevidence.ManagedFieldsPage); got != want {
		t.Errorf("served %d objects, want %d: the budget's and the page that did not fit", got, want)
	}
	var mf []replay.EvidenceSource
	for _, s := range rep.Evidence.Sources {
		if s.Kind == replay.SourceManagedFields {
			mf = append(mf, s)
		}
	}
	if len(mf) != asked {
		t.Fatalf("%d managedFields sources, want one per GVR asked (%d): %q", len(mf), asked, sourcesOf(rep))
	}
	if !mf[0].Read || mf[0].Objects != replay.MaxEvidenceObjects || !strings.Contains(mf[0].Cut, "200000 objects") {
		t.Errorf("GVR read: %+v, want cut at the budget's objects with %d read", mf[0], replay.MaxEvidenceObjects)
	}
	for _, s := range mf[1:] {
		if s.Read || s.Cut != replay.CutUnread {
			t.Errorf("GVR after the cut: %+v, want not read", s)
		}
	}
	t.Logf("verdict: %s, exit %v, partial %q", rep.Verdict.Result, rep.Verdict.Exit, rep.Verdict.Partial())
	if rep.Verdict.Exit == report.OK || !strings.Contains(strings.Join(rep.Verdict.Partial(), "; "), "managedFields of "+mf[0].Name) {
		t.Errorf("verdict %+v, want one that fails, partial, naming the managedFields of %s", rep.Verdict, mf[0].Name)
	}
}

// A budget the manifests spent leaves the managedFields unread: none is asked for, each GVR at
// risk is said not read, and the verdict is partial.
func TestRunManagedFieldsAfterBudgetSpent(t *testing.T) {
	start, steps := upgradeTo137(t)
	huge := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(huge)
	if err == nil {
		err = errors.Join(f.Truncate(replay.MaxEvidenceBytes+1), f.Close()) // sparse: sized, never read
	}
	if err != nil {
		t.Fatal(err)
	}
	asked := false
	readMF := func(context.Context, []snapshot.ManagedFieldsRequest, *replay.Budget) ([]snapshot.ManagedFields, error) {
		asked = true
		return nil, nil
	}
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", Manifests: []string{huge}, ManagedFields: readMF})
	if err != nil {
		t.Fatal(err)
	}
	if asked {
		t.Error("managedFields read after the budget was spent")
	}
	n := 0
	for _, s := range rep.Evidence.Sources {
		if s.Kind == replay.SourceManagedFields {
			n++
			if s.Read || s.Cut != replay.CutUnread {
				t.Errorf("managedFields source %+v, want not read", s)
			}
		}
	}
	if n == 0 || !strings.Contains(strings.Join(rep.Verdict.Partial(), "; "), "managedFields") {
		t.Errorf("%d managedFields source(s), verdict partial %q: want the GVRs at risk said not read", n, rep.Verdict.Partial())
	}
}
