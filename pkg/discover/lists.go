package discover

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	apiserverinternalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// pageSize bounds one page of a cluster-wide list: CRDs carry their whole schema, so a full
// list of a big cluster can be large.
const pageSize = 100

// listHeader is what every list page says of itself: its kind, and where the next page starts.
type listHeader struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
}

// apiServiceList decodes only what discovery needs, so mvpctl does not depend on the
// kube-aggregator module for a few fields (crdList, crds.go, likewise).
type apiServiceList struct {
	listHeader
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Group   string `json:"group"`
			Version string `json:"version"`
			// Service is set for aggregated APIs, nil for the built-in and CRD ones the
			// aggregator serves locally.
			Service *struct {
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
				Port      *int32 `json:"port"`
			} `json:"service"`
		} `json:"spec"`
		Status struct {
			Conditions []struct {
				Type               string     `json:"type"`
				Status             string     `json:"status"`
				Reason             string     `json:"reason"`
				Message            string     `json:"message"`
				LastTransitionTime *time.Time `json:"lastTransitionTime"`
			} `json:"conditions"`
		} `json:"status"`
	} `json:"items"`
}

const (
	apiServicePath     = "/apis/apiregistration.k8s.io/v1/apiservices"
	storageVersionPath = "/apis/internal.apiserver.k8s.io/v1alpha1/storageversions"
)

// listPages GETs path page by page, calling decode with each page's body target and reading
// the continue token from it.
func listPages(ctx context.Context, c *serverClient, path string, page func() (any, func() string)) error {
	cont := ""
	for {
		q := url.Values{"limit": {strconv.Itoa(pageSize)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		out, next := page()
		if _, err := c.getJSON(ctx, path+"?"+q.Encode(), "application/json", out); err != nil {
			return err
		}
		if cont = next(); cont == "" {
			return nil
		}
	}
}

// listAPIServices returns every APIService with its service reference and Available
// condition, sorted by name (docs/behaviour.md §16).
func listAPIServices(ctx context.Context, c *serverClient) ([]snapshot.APIService, error) {
	var out []snapshot.APIService
	err := listPages(ctx, c, apiServicePath, func() (any, func() string) {
		var l apiServiceList
		return &l, func() string {
			for _, it := range l.Items {
				a := snapshot.APIService{Name: it.Metadata.Name, Group: it.Spec.Group, Version: it.Spec.Version}
				if svc := it.Spec.Service; svc != nil {
					// The API server defaults an omitted port to 443.
					a.Service = &snapshot.ServiceReference{Namespace: svc.Namespace, Name: svc.Name, Port: 443}
					if svc.Port != nil {
						a.Service.Port = *svc.Port
					}
				}
				for _, cond := range it.Status.Conditions {
					if cond.Type == "Available" {
						a.Available = &snapshot.APIServiceCondition{Status: cond.Status, Reason: cond.Reason, Message: cond.Message, LastTransitionTime: cond.LastTransitionTime}
					}
				}
				out = append(out, a)
			}
			return l.Metadata.Continue
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// aggregatedGroupVersions is "group/version" of every APIService with spec.service.
func aggregatedGroupVersions(as []snapshot.APIService) []string {
	set := map[string]bool{}
	for _, a := range as {
		if a.Aggregated() {
			set[a.GroupVersion()] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// listStorageVersions reads what 1.28–1.32 servers route on (docs/behaviour.md §4.1).
func listStorageVersions(ctx context.Context, c *serverClient) ([]snapshot.StorageVersion, error) {
	var out []snapshot.StorageVersion
	err := listPages(ctx, c, storageVersionPath, func() (any, func() string) {
		var l apiserverinternalv1alpha1.StorageVersionList
		return &l, func() string {
			for _, sv := range l.Items {
				out = append(out, convertStorageVersion(sv))
			}
			return l.Continue
		}
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Resource < out[j].Resource
	})
	return out, err
}

// convertStorageVersion reads the group and resource from the object's name, "<group>.<resource>"
// with "core" for the core group, as the storage version manager writes it.
func convertStorageVersion(sv apiserverinternalv1alpha1.StorageVersion) snapshot.StorageVersion {
	group, resource := "", sv.Name
	if i := strings.LastIndex(sv.Name, "."); i >= 0 {
		group, resource = sv.Name[:i], sv.Name[i+1:]
	}
	if group == "core" {
		group = ""
	}
	out := snapshot.StorageVersion{Group: group, Resource: resource, Servers: []snapshot.StorageVersionServer{}}
	for _, e := range sv.Status.StorageVersions {
		out.Servers = append(out.Servers, snapshot.StorageVersionServer{
			APIServerID:    e.APIServerID,
			ServedVersions: append([]string{}, e.ServedVersions...),
		})
	}
	return out
}
