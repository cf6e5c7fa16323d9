package apiserver

import (
	"crypto/sha512"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiserverinternalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// How a fake server answers discovery, by the kube-apiserver versions that behave so.
const (
	ModeNoPeer        = "nopeer"         // 1.35+: honours profile=nopeer; default /apis is peer-aggregated
	ModeIgnoreProfile = "ignore-profile" // 1.30–1.34: v2, profile parameter ignored
	ModeV2Beta1       = "v2beta1"        // 1.26–1.29: aggregated v2beta1 only
	ModeLegacy        = "legacy"         // no aggregated discovery at all
)

// Cluster is the state every fake server of one control plane shares, as through etcd.
type Cluster struct {
	Leases []coordinationv1.Lease
	// CRDsJSON and APIServicesJSON are served as the CRD and APIService lists (404 when nil);
	// CRDsJSONFixture and APIServicesJSONFixture are real-shaped ones.
	CRDsJSON, APIServicesJSON []byte
	StorageVersions           *apiserverinternalv1alpha1.StorageVersionList
}

// Server answers like one kube-apiserver, with bodies marshalled from the real k8s.io/api and
// apimachinery types and the headers kube-apiserver sets. Set the fields, then Start.
type Server struct {
	Cluster    *Cluster
	GitVersion string // e.g. v1.36.3
	Emulation  string // "1.35" → emulationMajor/Minor in /version
	Mode       string // ModeNoPeer, ModeIgnoreProfile, ModeV2Beta1 or ModeLegacy
	Core       apidiscoveryv2.APIGroupDiscovery
	Groups     []apidiscoveryv2.APIGroupDiscovery
	// PeerOnly groups appear only in the peer-aggregated /apis (ModeNoPeer).
	PeerOnly []apidiscoveryv2.APIGroupDiscovery
	Hooks    []string // extra readyz checks, in order (e.g. Hooks136)
	NotReady bool     // readyz fails its proxy hooks and answers 500
	Token    string   // required bearer token ("" = any caller); a client cert from the PKI also passes
	// Override answers a path (URL.Path) instead of the normal handler.
	Override map[string]http.HandlerFunc
	// Advertise is serverAddressByClientCIDRs in legacy /api ("" = the listener's address).
	Advertise string
	// Cert is the serving certificate (default: from the PKI, naming kubernetes.default.svc,
	// localhost and 127.0.0.1).
	Cert *tls.Certificate

	HTTP     *httptest.Server
	t        testing.TB
	mu       sync.Mutex
	requests []string
}

// Start serves on a loopback TLS listener until the test ends. Client certificates signed by
// p are verified.
func (f *Server) Start(t testing.TB, p *PKI) *Server {
	t.Helper()
	f.t = t
	if f.Cluster == nil {
		f.Cluster = &Cluster{}
	}
	cert := p.ServingCert(t, []string{"kubernetes.default.svc", "kubernetes", "localhost"}, "127.0.0.1")
	if f.Cert != nil {
		cert = *f.Cert
	}
	f.HTTP = httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	// Handshakes the tests make fail on purpose would otherwise be logged.
	f.HTTP.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.HTTP.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: p.Pool()}
	f.HTTP.StartTLS()
	f.t.Cleanup(f.HTTP.Close)
	return f
}

// URL is https://127.0.0.1:port.
func (f *Server) URL() string { return f.HTTP.URL }

// Addr is the listener's ip:port, as a peer-advertise address.
func (f *Server) Addr() string { return f.HTTP.Listener.Addr().String() }

// Requests lists the requests served so far, as "path accept".
func (f *Server) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.Path+" "+r.Header.Get("Accept"))
	f.mu.Unlock()
	if h := f.Override[r.URL.Path]; h != nil {
		h(w, r)
		return
	}
	public := r.URL.Path == "/readyz" || r.URL.Path == "/version"
	if f.Token != "" && !public && r.Header.Get("Authorization") != "Bearer "+f.Token && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
		WriteStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
		return
	}
	switch p := r.URL.Path; {
	case p == "/version":
		WriteJSON(w, "application/json", f.VersionInfo())
	case p == "/readyz":
		f.serveReadyz(w)
	case p == "/api" || p == "/apis":
		f.serveDiscovery(w, r)
	case p == "/api/v1" || strings.HasPrefix(p, "/apis/") && strings.Count(p, "/") == 3:
		f.serveResourceList(w, r)
	case p == "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases":
		if r.URL.Query().Get("labelSelector") != "apiserver.kubernetes.io/identity=kube-apiserver" {
			f.t.Errorf("lease list without the identity label selector: %s", r.URL.RawQuery)
		}
		WriteJSON(w, "application/json", coordinationv1.LeaseList{TypeMeta: metav1.TypeMeta{Kind: "LeaseList", APIVersion: "coordination.k8s.io/v1"}, Items: f.Cluster.Leases})
	case p == "/apis/apiextensions.k8s.io/v1/customresourcedefinitions" && f.Cluster.CRDsJSON != nil:
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.Cluster.CRDsJSON)
	case p == "/apis/apiregistration.k8s.io/v1/apiservices" && f.Cluster.APIServicesJSON != nil:
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.Cluster.APIServicesJSON)
	case p == "/apis/internal.apiserver.k8s.io/v1alpha1/storageversions" && f.Cluster.StorageVersions != nil:
		WriteJSON(w, "application/json", f.Cluster.StorageVersions)
	default:
		// What kube-apiserver answers for a path no handler serves.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, mvp.NotFoundText+"\n")
	}
}

// VersionInfo is what /version answers.
func (f *Server) VersionInfo() version.Info {
	v := strings.TrimPrefix(f.GitVersion, "v")
	parts := strings.SplitN(v, ".", 3)
	info := version.Info{Major: parts[0], Minor: parts[1], GitVersion: f.GitVersion, GitCommit: "0123456789abcdef0123456789abcdef01234567",
		GitTreeState: "clean", BuildDate: "2026-05-01T00:00:00Z", GoVersion: "go1.26.2", Compiler: "gc", Platform: "linux/amd64"}
	if f.Emulation != "" {
		em := strings.SplitN(f.Emulation, ".", 2)
		info.EmulationMajor, info.EmulationMinor = em[0], em[1]
		info.MinCompatibilityMajor, info.MinCompatibilityMinor = em[0], em[1]
	}
	return info
}

// serveReadyz writes /readyz?verbose as kube-apiserver does: one line per check, then the
// verdict; 500 when a check fails.
func (f *Server) serveReadyz(w http.ResponseWriter) {
	var b strings.Builder
	for _, h := range append([]string{"ping", "log", "etcd", "etcd-readiness", "informer-sync", "poststarthook/start-apiserver-admission-initializer", "poststarthook/generic-apiserver-start-informers"}, f.Hooks...) {
		if f.NotReady && strings.Contains(h, "proxy") {
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", h)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", h)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if f.NotReady {
		w.WriteHeader(http.StatusInternalServerError)
		b.WriteString("readyz check failed\n")
	} else {
		b.WriteString("readyz check passed\n")
	}
	fmt.Fprint(w, b.String())
}

// serveDiscovery answers /api and /apis according to the server's mode, negotiating the way
// kube-apiserver does: the first acceptable Accept clause wins; the aggregated answer's
// Content-Type names g, v and as but never the profile (apiserver v0.37
// responsewriters.generateMediaTypeWithGVK).
func (f *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) {
	groups := f.Groups
	if r.URL.Path == "/api" {
		groups = []apidiscoveryv2.APIGroupDiscovery{f.Core}
	}
	for _, clause := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(clause))
		if err != nil || (mt != "application/json" && mt != "*/*") {
			continue
		}
		if len(params) == 0 || mt == "*/*" {
			f.ServeLegacyRoot(w, r)
			return
		}
		if params["g"] != "apidiscovery.k8s.io" || params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		switch {
		case params["v"] == "v2" && (f.Mode == ModeNoPeer || f.Mode == ModeIgnoreProfile):
			items := groups
			// Only 1.35+ has the peer-aggregated /apis, served unless profile=nopeer.
			if f.Mode == ModeNoPeer && r.URL.Path == "/apis" && params["profile"] != "nopeer" && f.PeerOnly != nil {
				items = append(append([]apidiscoveryv2.APIGroupDiscovery(nil), groups...), f.PeerOnly...)
			}
			WriteAggregated(w, "v2", items)
			return
		case params["v"] == "v2beta1" && (f.Mode == ModeV2Beta1 || f.Mode == ModeIgnoreProfile):
			WriteAggregated(w, "v2beta1", groups)
			return
		}
	}
	WriteStatus(w, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf")
}

// WriteAggregated writes an APIGroupDiscoveryList with kube-apiserver's headers: the ETag is the
// quoted uppercase hex SHA-512 of the JSON of {items} (docs/behaviour.md §7).
func WriteAggregated(w http.ResponseWriter, v string, items []apidiscoveryv2.APIGroupDiscovery) {
	etagSrc, _ := json.Marshal(apidiscoveryv2.APIGroupDiscoveryList{Items: items})
	sum := sha512.Sum512(etagSrc)
	w.Header().Set("ETag", fmt.Sprintf("%q", strings.ToUpper(hex.EncodeToString(sum[:]))))
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	list := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/" + v}, Items: items}
	WriteJSON(w, "application/json;g=apidiscovery.k8s.io;v="+v+";as=APIGroupDiscoveryList", list)
}

// ServeLegacyRoot writes the unaggregated APIVersions (/api) or APIGroupList (/apis).
func (f *Server) ServeLegacyRoot(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api" {
		addr := f.Advertise
		if addr == "" {
			addr = f.Addr()
		}
		WriteJSON(w, "application/json", metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: addr}}})
		return
	}
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, g := range f.Groups {
		ag := metav1.APIGroup{Name: g.Name}
		for _, v := range g.Versions {
			ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.Name + "/" + v.Version, Version: v.Version})
		}
		ag.PreferredVersion = ag.Versions[0]
		list.Groups = append(list.Groups, ag)
	}
	WriteJSON(w, "application/json", list)
}

// serveResourceList writes an unaggregated APIResourceList, subresources as "pods/status".
func (f *Server) serveResourceList(w http.ResponseWriter, r *http.Request) {
	group, ver := "", "v1"
	if strings.HasPrefix(r.URL.Path, "/apis/") {
		parts := strings.Split(r.URL.Path, "/")
		group, ver = parts[2], parts[3]
	}
	for _, g := range append([]apidiscoveryv2.APIGroupDiscovery{f.Core}, f.Groups...) {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != ver {
				continue
			}
			list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: strings.TrimPrefix(group+"/"+ver, "/")}
			for _, res := range v.Resources {
				kind := ""
				if res.ResponseKind != nil {
					kind = res.ResponseKind.Kind
				}
				list.APIResources = append(list.APIResources, metav1.APIResource{Name: res.Resource, SingularName: res.SingularResource,
					Namespaced: res.Scope == apidiscoveryv2.ScopeNamespace, Kind: kind, Verbs: res.Verbs})
				for _, s := range res.Subresources {
					list.APIResources = append(list.APIResources, metav1.APIResource{Name: res.Resource + "/" + s.Subresource,
						Namespaced: res.Scope == apidiscoveryv2.ScopeNamespace, Kind: kind, Verbs: s.Verbs})
				}
			}
			WriteJSON(w, "application/json", list)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, mvp.NotFoundText+"\n")
}

// WriteJSON writes v as JSON with the given Content-Type.
func WriteJSON(w http.ResponseWriter, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(b)
}

// WriteStatus writes a metav1.Status as kube-apiserver does for errors.
func WriteStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code)}
	if reason == metav1.StatusReasonForbidden {
		st.Details = &metav1.StatusDetails{}
	}
	b, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(b)
}
