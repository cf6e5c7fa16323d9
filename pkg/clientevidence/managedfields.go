package clientevidence

import (
	"context"
	"fmt"
	"net/url"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The managedFields of live objects as client evidence: for each GVR asked (the ones at risk),
// the field managers that wrote its objects and the apiVersion each wrote with; and, from the
// same read, the apiVersion and kind each object's last-applied-configuration states
// (lastapplied.go). Only metadata is read, never an object's contents (a Secret's data
// included).

// metadataListAccept asks the apiserver for a PartialObjectMetadataList: each object's
// metadata, without its spec, status or data.
const metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// Paging and the default cap of objects read per resource.
const (
	ManagedFieldsPage       = 500
	DefaultManagedFieldsCap = 50_000
)

// EvidenceBudget is the run's one budget of client evidence (replay.Budget): each page of
// managedFields read is taken from it, its bytes, one document and its objects.
type EvidenceBudget interface {
	TakePage(bytes int64, objects int, at string) error
}

// ManagedFields lists the objects of each request's GVR (through its Via) at the kubeconfig's
// server, page by page,
// up to perResource objects each (DefaultManagedFieldsCap when 0), and sums their
// managedFields by manager and apiVersion. A GVR that cannot be read has its Error set; the
// others are read all the same.
//
// Every page is taken from budget (nil: none). A page that does not fit ends the reads with
// the budget's error: the reads returned are those before it, the last one the GVR it was
// cut in (its objects up to that page); the GVRs after it are not read.
func ManagedFields(ctx context.Context, opts Options, reqs []snapshot.ManagedFieldsRequest, perResource int, budget EvidenceBudget) ([]snapshot.ManagedFields, error) {
	if perResource <= 0 {
		perResource = DefaultManagedFieldsCap
	}
	red := &redact.Redactor{}
	c, err := opts.Connect(red)
	if err != nil {
		return nil, err
	}
	out := make([]snapshot.ManagedFields, 0, len(reqs))
	for _, req := range reqs {
		mf, cut := readManagedFields(ctx, c, req, perResource, budget)
		mf.ReadAt = opts.now().UTC()
		mf.Error = red.Clean(mf.Error)
		out = append(out, mf)
		if cut != nil {
			return out, cut
		}
	}
	return out, nil
}

// readManagedFields reads one GVR's objects' metadata, paged, taking each page from budget
// (cut: the page that did not fit, not counted).
func readManagedFields(ctx context.Context, c *apiclient.Client, req snapshot.ManagedFieldsRequest, perResource int, budget EvidenceBudget) (mf snapshot.ManagedFields, cut error) {
	mf = snapshot.ManagedFields{GVR: req.GVR, Via: req.Via, Cap: perResource}
	type key struct{ manager, apiVersion, operation string }
	sums := map[key]*snapshot.FieldManager{}
	cont := ""
	for {
		list, size, err := managedFieldsPage(ctx, c, req.Via, min(ManagedFieldsPage, perResource-mf.Objects), cont)
		if err != nil {
			mf.Error = err.Error()
			break
		}
		if budget != nil {
			if cut = budget.TakePage(int64(size), len(list.Items), "managedFields of "+req.GVR.String()); cut != nil {
				break
			}
		}
		for _, item := range list.Items {
			if mf.Objects == perResource {
				mf.Capped = true
				break
			}
			mf.Objects++
			if la, ok, bad := lastApplied(item.Annotations, item.Namespace, item.Name); bad {
				mf.LastAppliedUnreadable++
			} else if ok {
				mf.LastApplied = append(mf.LastApplied, la)
			}
			for _, e := range item.ManagedFields {
				k := key{e.Manager, e.APIVersion, string(e.Operation)}
				fm := sums[k]
				if fm == nil {
					fm = &snapshot.FieldManager{Manager: e.Manager, APIVersion: e.APIVersion, Operation: string(e.Operation)}
					sums[k] = fm
				}
				fm.Objects++
				if e.Time != nil && (fm.Newest == nil || e.Time.Time.After(*fm.Newest)) {
					t := e.Time.Time.UTC()
					fm.Newest = &t
				}
			}
		}
		cont = list.Continue
		if cont == "" || mf.Capped {
			break
		}
		if mf.Objects >= perResource {
			mf.Capped = true
			break
		}
	}
	for _, fm := range sums {
		mf.Managers = append(mf.Managers, *fm)
	}
	sort.Slice(mf.Managers, func(i, j int) bool {
		a, b := mf.Managers[i], mf.Managers[j]
		return a.Manager+"\x00"+a.APIVersion+"\x00"+a.Operation < b.Manager+"\x00"+b.APIVersion+"\x00"+b.Operation
	})
	return mf, cut
}

// managedFieldsPage reads one page of a GVR's PartialObjectMetadataList, and its size in bytes.
func managedFieldsPage(ctx context.Context, c *apiclient.Client, g snapshot.GVR, limit int, cont string) (*metav1.PartialObjectMetadataList, int, error) {
	prefix := "/apis/" + g.Group + "/" + g.Version
	if g.Group == "" {
		prefix = "/api/" + g.Version
	}
	q := url.Values{"limit": {fmt.Sprint(limit)}}
	if cont != "" {
		q.Set("continue", cont)
	}
	path := prefix + "/" + g.Resource + "?" + q.Encode()
	var list metav1.PartialObjectMetadataList
	resp, err := c.GetJSON(ctx, path, metadataListAccept, &list)
	if err != nil {
		return nil, 0, err
	}
	return &list, len(resp.Body), nil
}
