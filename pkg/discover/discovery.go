package discover

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Accept headers for discovery. The non-peer v2 document is what a 1.35+ server serves by
// itself; 1.33/1.34 ignore the profile parameter and answer their (only, local) v2 document;
// 1.26–1.29 answer v2beta1 (v2 came in 1.30); anything else answers the unaggregated
// APIGroupList/APIVersions. Listing all of them in one Accept header, in that order, is how
// kube-apiserver asks for its own local discovery and how client-go asks: the server picks
// the first it can serve, and the response's Content-Type says which. One round trip instead
// of up to four.
const (
	acceptV2NoPeer  = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer"
	acceptV2        = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	acceptV2Beta1   = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
	acceptLegacy    = "application/json"
	acceptDiscovery = acceptV2NoPeer + "," + acceptV2 + "," + acceptV2Beta1 + "," + acceptLegacy
)

// discoveryDoc is one server's flattened discovery of /api plus /apis.
type discoveryDoc struct {
	// format is the aggregated version the server chose ("v2", "v2beta1") or "legacy".
	format    string
	resources []snapshot.Resource
	// stale lists group versions the server marked freshness: Stale, which were left out.
	stale []string
	// serverAddresses are serverAddressByClientCIDRs from legacy /api, when it was read.
	serverAddresses []string
	// invalid lists entries left out by sanitize.
	invalid []string
	// apis is the /apis document as served, when it was aggregated discovery v2: the local
	// input of peer-aggregated discovery (Server.APIs).
	apis *snapshot.DiscoveryDocument
	// coreAPI is the /api document as served, when it was aggregated discovery v2 (Server.CoreAPI).
	coreAPI *snapshot.DiscoveryDocument
	// invalidDoc says why the /api or /apis document was not recorded.
	invalidDoc string
}

// aggregatedVersion returns "v2" or "v2beta1" when contentType is an aggregated discovery
// document, else "".
func aggregatedVersion(contentType string) string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["g"] != "apidiscovery.k8s.io" || params["as"] != "APIGroupDiscoveryList" {
		return ""
	}
	return params["v"]
}

// fetchDiscovery reads /api and /apis with the fallback chain above.
func fetchDiscovery(ctx context.Context, c *serverClient) (*discoveryDoc, error) {
	doc := &discoveryDoc{}
	for _, path := range []string{"/api", "/apis"} {
		resp, err := c.get(ctx, path, acceptDiscovery)
		if err != nil {
			return nil, err
		}
		if resp.Code == http.StatusNotAcceptable {
			// Something in front of the server refused the aggregated types: ask for the
			// unaggregated document alone.
			if resp, err = c.get(ctx, path, acceptLegacy); err != nil {
				return nil, err
			}
		}
		if err := c.checkJSON(path, resp); err != nil {
			return nil, err
		}
		format := aggregatedVersion(resp.ContentType)
		switch format {
		case "v2", "v2beta1":
			// v2beta1 has the same JSON shape as v2, so one decoder serves both.
			var list apidiscoveryv2.APIGroupDiscoveryList
			if err := c.DecodeJSON(path, resp.Body, &list); err != nil {
				return nil, err
			}
			if list.Kind != "" && list.Kind != "APIGroupDiscoveryList" {
				return nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("got a %s with an aggregated-discovery Content-Type", list.Kind))
			}
			rs, stale := snapshot.FlattenDiscovery(list.Items)
			doc.resources = append(doc.resources, rs...)
			doc.stale = append(doc.stale, stale...)
			if path == "/api" && format == "v2" {
				doc.coreAPI = &snapshot.DiscoveryDocument{ETag: resp.ETag, Items: nonNil(list.Items)}
				if err := doc.coreAPI.CheckCore(); err != nil {
					doc.invalidDoc = fmt.Sprintf("/api document not recorded: %s", err)
					doc.coreAPI = nil
				}
			}
			if path == "/apis" && format == "v2" {
				doc.apis = &snapshot.DiscoveryDocument{ETag: resp.ETag, Items: nonNil(list.Items)}
				if err := doc.apis.Check(); err != nil {
					// Recorded documents must be valid; the resources above are sanitized.
					doc.invalidDoc = joinNonEmpty(doc.invalidDoc, fmt.Sprintf("/apis document not recorded: %s", err))
					doc.apis = nil
				}
			}
		case "":
			format = snapshot.DiscoveryLegacy
			rs, addrs, stale, err := legacyDiscovery(ctx, c, path, resp.Body)
			if err != nil {
				return nil, err
			}
			doc.resources = append(doc.resources, rs...)
			doc.serverAddresses = append(doc.serverAddresses, addrs...)
			doc.stale = append(doc.stale, stale...)
		default:
			return nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("aggregated discovery version %q is not known to mvpctl", format))
		}
		// /apis decides the recorded format: it is the document peer aggregation changes.
		doc.format = format
	}
	var dropped []string
	doc.resources, dropped = snapshot.Sanitize(doc.resources)
	doc.invalid = dropped
	return doc, nil
}

// fetchPeerAggregated reads the default /apis (no profile): on a 1.35+ server with the proxy
// built it is the peer-aggregated document. Only v2 is accepted: peer aggregation exists only
// there. It returns the flattened resources and the document as served.
func fetchPeerAggregated(ctx context.Context, c *serverClient) ([]snapshot.Resource, *snapshot.DiscoveryDocument, error) {
	const path = "/apis"
	resp, err := c.get(ctx, path, acceptV2)
	if err != nil {
		return nil, nil, err
	}
	if err := c.checkJSON(path, resp); err != nil {
		return nil, nil, err
	}
	if v := aggregatedVersion(resp.ContentType); v != "v2" {
		return nil, nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("asked for aggregated discovery v2, got Content-Type %q", resp.ContentType))
	}
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := c.DecodeJSON(path, resp.Body, &list); err != nil {
		return nil, nil, err
	}
	rs, _ := snapshot.FlattenDiscovery(list.Items)
	rs, _ = snapshot.Sanitize(rs)
	return rs, &snapshot.DiscoveryDocument{ETag: resp.ETag, Items: nonNil(list.Items)}, nil
}

// nonNil makes an empty document's items [] rather than null, so it is recorded as a document.
func nonNil(items []apidiscoveryv2.APIGroupDiscovery) []apidiscoveryv2.APIGroupDiscovery {
	if items == nil {
		return []apidiscoveryv2.APIGroupDiscovery{}
	}
	return items
}

// legacyDiscovery crawls unaggregated discovery: /api (APIVersions) or /apis (APIGroupList),
// then one APIResourceList per group version. body is the first document, already fetched.
func legacyDiscovery(ctx context.Context, c *serverClient, path string, body []byte) (rs []snapshot.Resource, addrs, stale []string, err error) {
	var gvs []string
	if path == "/api" {
		var v metav1.APIVersions
		if err := c.DecodeJSON(path, body, &v); err != nil {
			return nil, nil, nil, err
		}
		if v.Kind != "" && v.Kind != "APIVersions" {
			return nil, nil, nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("got a %s, want APIVersions", v.Kind))
		}
		gvs = v.Versions
		for _, a := range v.ServerAddressByClientCIDRs {
			addrs = append(addrs, a.ServerAddress)
		}
	} else {
		var gl metav1.APIGroupList
		if err := c.DecodeJSON(path, body, &gl); err != nil {
			return nil, nil, nil, err
		}
		if gl.Kind != "" && gl.Kind != "APIGroupList" {
			return nil, nil, nil, apiclient.InvalidDoc(c.base, path, fmt.Sprintf("got a %s, want APIGroupList", gl.Kind))
		}
		for _, g := range gl.Groups {
			for _, v := range g.Versions {
				gvs = append(gvs, v.GroupVersion)
			}
		}
	}
	for _, gv := range gvs {
		gvPath := path + "/" + gv
		resp, err := c.get(ctx, gvPath, acceptLegacy)
		if err != nil {
			return nil, nil, nil, err
		}
		if resp.Code == http.StatusNotFound {
			// Unaggregated /apis lists every APIService, including group versions this server
			// does not serve itself (docs/behaviour.md §3.3).
			continue
		}
		if resp.Code == http.StatusServiceUnavailable {
			// An aggregated API whose backend is down: what aggregated discovery marks Stale.
			stale = append(stale, gv)
			continue
		}
		if err := c.checkJSON(gvPath, resp); err != nil {
			return nil, nil, nil, err
		}
		var list metav1.APIResourceList
		if err := c.DecodeJSON(gvPath, resp.Body, &list); err != nil {
			return nil, nil, nil, err
		}
		rs = append(rs, flattenLegacy(list)...)
	}
	return rs, addrs, stale, nil
}

// flattenLegacy folds "pods/status" entries into their resource's subresources.
func flattenLegacy(list metav1.APIResourceList) []snapshot.Resource {
	group, version := splitGroupVersion(list.GroupVersion)
	var rs []snapshot.Resource
	index := map[string]int{}
	for _, r := range list.APIResources {
		if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
			if i, found := index[parent]; found {
				rs[i].Subresources = append(rs[i].Subresources, sub)
			}
			continue
		}
		index[r.Name] = len(rs)
		rs = append(rs, snapshot.Resource{
			Group: group, Version: version, Resource: r.Name, Kind: r.Kind,
			Namespaced: r.Namespaced, Verbs: append([]string(nil), r.Verbs...),
		})
	}
	return rs
}

// fetchServerAddresses reads legacy /api only for serverAddressByClientCIDRs: the address the
// server advertises, which by default is also its peer-advertise address. Used to give a
// server reached by --endpoint or --contexts its identity lease.
func fetchServerAddresses(ctx context.Context, c *serverClient) ([]string, error) {
	var v metav1.APIVersions
	if _, err := c.getJSON(ctx, "/api", acceptLegacy, &v); err != nil {
		return nil, err
	}
	var addrs []string
	for _, a := range v.ServerAddressByClientCIDRs {
		addrs = append(addrs, a.ServerAddress)
	}
	return addrs, nil
}

func splitGroupVersion(gv string) (group, version string) {
	if g, v, ok := strings.Cut(gv, "/"); ok {
		return g, v
	}
	return "", gv
}

// joinNonEmpty joins a and b with "; ", leaving out an empty one.
func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
