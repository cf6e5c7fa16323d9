// Package auditevents writes synthetic, real-shaped Kubernetes audit logs: audit.k8s.io/v1 Event
// JSON lines as kube-apiserver's log backend writes them (the same struct, the same encoder, so
// the same field order and escaping: "\u0026" in query strings, "\"" in RBAC reasons), about
// 800 bytes a line. The output depends only on Options: the same seed gives the same bytes.
//
// It is for benchmarks and differential tests of the audit-log reader; `go run
// ./test/tools/auditgen -h` writes a file.
package auditevents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Options shape a generated log.
type Options struct {
	Seed uint64
	// Requests is the number of requests; each logs one to three events (see Stages).
	Requests int
	// Stages logs RequestReceived (and ResponseStarted for watches) before ResponseComplete,
	// as a policy without omitStages does; otherwise only the final event is logged.
	Stages bool
	// MalformedEvery injects a malformed line (truncated JSON, a non-Event object, an event
	// without a verb, a number where a string belongs, a blank line) every so many requests;
	// 0 injects none.
	MalformedEvery int
	// CRLF ends lines with "\r\n"; NoTrailingNewline leaves the last line unterminated.
	CRLF, NoTrailingNewline bool
}

type resource struct {
	group, version, resource string
	namespaced               bool
}

var resources = []resource{
	{"", "v1", "pods", true}, {"", "v1", "pods", true}, {"", "v1", "pods", true},
	{"", "v1", "configmaps", true}, {"", "v1", "secrets", true}, {"", "v1", "services", true},
	{"", "v1", "endpoints", true}, {"", "v1", "nodes", false}, {"", "v1", "namespaces", false},
	{"", "v1", "events", true}, {"", "v1", "serviceaccounts", true},
	{"apps", "v1", "deployments", true}, {"apps", "v1", "replicasets", true},
	{"apps", "v1", "daemonsets", true}, {"apps", "v1", "statefulsets", true},
	{"batch", "v1", "jobs", true}, {"batch", "v1", "cronjobs", true},
	{"coordination.k8s.io", "v1", "leases", true}, {"coordination.k8s.io", "v1", "leases", true},
	{"discovery.k8s.io", "v1", "endpointslices", true},
	{"rbac.authorization.k8s.io", "v1", "roles", true},
	{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false},
	{"networking.k8s.io", "v1", "ingresses", true}, {"policy", "v1", "poddisruptionbudgets", true},
	{"storage.k8s.io", "v1", "storageclasses", false},
	{"flowcontrol.apiserver.k8s.io", "v1", "flowschemas", false},
	{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false},
	{"resource.k8s.io", "v1beta1", "resourceclaims", true},
	{"autoscaling", "v2", "horizontalpodautoscalers", true},
	{"example.com", "v1alpha1", "widgets", true},
}

var nonResource = []string{"/healthz", "/livez", "/readyz", "/metrics", "/version", "/openapi/v2", "/api", "/apis"}

var agents = []string{
	"kubelet/v1.36.2 (linux/amd64) kubernetes/4f3a2c1",
	"kube-controller-manager/v1.36.2 (linux/amd64) kubernetes/4f3a2c1/system:serviceaccount:kube-system:%s",
	"kube-scheduler/v1.36.2 (linux/amd64) kubernetes/4f3a2c1/scheduler",
	"kubectl/v1.35.1 (darwin/arm64) kubernetes/9e8d7c6",
	"argocd-application-controller/v0.0.0 (linux/amd64) kubernetes/$Format",
	"Go-http-client/2.0",
	"cluster-autoscaler/v1.36.0",
	"kube-probe/1.36",
}

var serviceAccounts = []string{"deployment-controller", "replicaset-controller", "endpointslice-controller", "job-controller", "namespace-controller", "generic-garbage-collector", "node-controller", "attachdetach-controller"}

// Write writes the log to w.
func Write(w io.Writer, o Options) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), o: o, t: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	eol := "\n"
	if o.CRLF {
		eol = "\r\n"
	}
	first := true
	line := func(b []byte) {
		if !first {
			bw.WriteString(eol)
		}
		first = false
		bw.Write(b)
	}
	for i := range o.Requests {
		if o.MalformedEvery > 0 && i%o.MalformedEvery == o.MalformedEvery-1 {
			line(g.malformed(i / o.MalformedEvery))
		}
		for _, ev := range g.request(i) {
			b, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			line(b)
		}
	}
	if !first && !o.NoTrailingNewline {
		bw.WriteString(eol)
	}
	return bw.Flush()
}

type gen struct {
	rnd *rand.Rand
	o   Options
	t   time.Time
}

func (g *gen) pick(n int) int { return g.rnd.IntN(n) }

func (g *gen) uuid() types.UID {
	a, b := g.rnd.Uint64(), g.rnd.Uint64()
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff))
}

func (g *gen) request(i int) []*auditv1.Event {
	g.t = g.t.Add(time.Duration(g.pick(2000)) * time.Microsecond)
	ns := fmt.Sprintf("team-%d", g.pick(40))
	if g.pick(4) == 0 {
		ns = "kube-system"
	}
	sa := serviceAccounts[g.pick(len(serviceAccounts))]
	agent := agents[g.pick(len(agents))]
	if agent == agents[1] {
		agent = fmt.Sprintf(agent, sa)
	}
	ev := &auditv1.Event{
		TypeMeta: metav1.TypeMeta{Kind: "Event", APIVersion: "audit.k8s.io/v1"},
		Level:    auditv1.LevelMetadata,
		AuditID:  g.uuid(),
		Stage:    auditv1.StageResponseComplete,
		User: authnv1.UserInfo{
			Username: "system:serviceaccount:kube-system:" + sa,
			Groups:   []string{"system:serviceaccounts", "system:authenticated"},
		},
		SourceIPs:                []string{fmt.Sprintf("10.%d.%d.%d", g.pick(4), g.pick(256), 1+g.pick(254))},
		UserAgent:                agent,
		ResponseStatus:           &metav1.Status{Code: 200},
		RequestReceivedTimestamp: metav1.NewMicroTime(g.t),
		Annotations: map[string]string{
			"authorization.k8s.io/decision": "allow",
			"authorization.k8s.io/reason":   fmt.Sprintf(`RBAC: allowed by ClusterRoleBinding "system:controller:%s" of ClusterRole "system:controller:%s" to ServiceAccount "%s/kube-system"`, sa, sa, sa),
		},
	}
	if g.pick(2) == 0 { // the Node authorizer and system:masters give no reason
		ev.Annotations["authorization.k8s.io/reason"] = ""
	}
	if g.pick(6) == 0 { // a bound token: kube-apiserver logs its credential id
		ev.User.UID = string(g.uuid())
		ev.User.Extra = map[string]authnv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"JTI=" + string(g.uuid())}}
	}
	if g.pick(20) == 0 {
		ev.RequestURI = nonResource[g.pick(len(nonResource))]
		ev.Verb = "get"
		ev.User = authnv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}
		ev.Annotations = map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": `RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`}
	} else {
		r := resources[g.pick(len(resources))]
		prefix := "/apis/" + r.group + "/" + r.version
		if r.group == "" {
			prefix = "/api/" + r.version
		}
		name := fmt.Sprintf("%s-%x", r.resource[:min(len(r.resource), 6)], g.rnd.Uint32()&0xfffff)
		ref := &auditv1.ObjectReference{Resource: r.resource, APIGroup: r.group, APIVersion: r.version}
		coll := prefix
		if r.namespaced {
			coll += "/namespaces/" + ns
			ref.Namespace = ns
		}
		coll += "/" + r.resource
		switch v := g.pick(100); {
		case v < 45:
			ev.Verb, ev.RequestURI, ref.Name = "get", coll+"/"+name, name
		case v < 60:
			ev.Verb, ev.RequestURI = "list", coll+fmt.Sprintf("?labelSelector=app%%3D%s&limit=500&resourceVersion=0", sa)
		case v < 68:
			ev.Verb, ev.RequestURI = "watch", coll+fmt.Sprintf("?allowWatchBookmarks=true&resourceVersion=%d&timeout=7m%ds&timeoutSeconds=%d&watch=true", 1000000+g.pick(9000000), g.pick(60), 300+g.pick(300))
		case v < 76:
			ev.Verb, ev.RequestURI = "create", coll+"?fieldManager=kubectl-client-side-apply&fieldValidation=Strict"
			ev.ResponseStatus.Code = 201
		case v < 84:
			ev.Verb, ev.RequestURI, ref.Name = "update", coll+"/"+name+"/status", name
			ref.Subresource = "status"
		case v < 94:
			ev.Verb, ev.RequestURI, ref.Name = "patch", coll+"/"+name+"?fieldManager=kube-controller-manager", name
		case v < 99:
			ev.Verb, ev.RequestURI, ref.Name = "delete", coll+"/"+name, name
		default:
			ev.Verb, ev.RequestURI = "deletecollection", coll
		}
		if ref.Name != "" && g.pick(8) == 0 {
			ev.ResponseStatus = &metav1.Status{Status: metav1.StatusFailure, Message: fmt.Sprintf("%s %q not found", r.resource, name), Reason: metav1.StatusReasonNotFound, Code: 404, Details: &metav1.StatusDetails{Name: name, Kind: r.resource}}
		}
		ev.ObjectRef = ref
	}
	ev.StageTimestamp = metav1.NewMicroTime(g.t.Add(time.Duration(200+g.pick(20000)) * time.Microsecond))
	evs := []*auditv1.Event{ev}
	if g.o.Stages {
		rr := *ev
		rr.Stage, rr.ResponseStatus, rr.StageTimestamp = auditv1.StageRequestReceived, nil, rr.RequestReceivedTimestamp
		rr.Annotations = nil
		evs = []*auditv1.Event{&rr, ev}
		if ev.Verb == "watch" {
			rs := *ev
			rs.Stage = auditv1.StageResponseStarted
			evs = []*auditv1.Event{&rr, &rs, ev}
		}
	}
	return evs
}

// malformed returns the k-th injected bad line.
func (g *gen) malformed(k int) []byte {
	ev := g.request(k)[0]
	b, _ := json.Marshal(ev)
	switch k % 7 {
	case 0: // a log cut off mid-write
		return b[:len(b)/2]
	case 1:
		return []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure"}`)
	case 2:
		return []byte(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","requestURI":"/api/v1/pods"}`)
	case 3:
		return []byte(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":7,"requestURI":"/api/v1/pods"}`)
	case 4:
		return []byte("   ")
	case 5:
		return append(b, `}garbage`...)
	default:
		return []byte("not json at all")
	}
}
