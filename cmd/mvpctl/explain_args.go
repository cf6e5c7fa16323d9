package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// explainForms are the argument forms of explain, with examples: in --help and in every error
// about them.
const explainForms = `explain takes one of:
  GVR                     batch/v1/jobs, v1/pods (as mvpctl routes prints it)
  RESOURCE.VERSION.GROUP  jobs.v1.batch (kubectl's form)
  RESOURCE.GROUP          jobs.batch, resourceclaims.resource.k8s.io (the newest version served)
  RESOURCE                jobs, pods (any group, the core group first)
  (in each form, RESOURCE may be a short name, singular or kind: cj, cronjob, CronJob)
  METHOD PATH             GET /apis/batch/v1/namespaces/default/jobs
  (none)                  with --resource/--group selecting one resource
The resource forms explain a list: GET in the namespace of -n (default "default") for a
namespaced resource, cluster-wide otherwise.`

// explainFormsLine is explainForms on the one line of an error.
const explainFormsLine = "explain takes a GVR (batch/v1/jobs, v1/pods), RESOURCE.VERSION.GROUP (jobs.v1.batch), RESOURCE.GROUP (jobs.batch), RESOURCE (pods), or METHOD PATH (GET /apis/batch/v1/namespaces/default/jobs)"

// defaultExplainNamespace is the namespace of the list explain builds without -n.
const defaultExplainNamespace = "default"

// explainArgs is what explain was asked about, before the snapshot is read: a parsed
// request (METHOD PATH), or a resource to find in the snapshot.
type explainArgs struct {
	req      *route.Request
	resource string
	filter   snapshot.GVRFilter
	// namespace is -n ("" when not given).
	namespace string
}

// parseExplainArgs checks explain's arguments and flags together; every error names the
// forms explain accepts.
func parseExplainArgs(args []string, filter snapshot.GVRFilter, namespace string) (explainArgs, error) {
	bad := func(format string, a ...any) (explainArgs, error) {
		return explainArgs{}, fmt.Errorf("%s: %s", fmt.Sprintf(format, a...), explainFormsLine)
	}
	a := explainArgs{filter: filter, namespace: namespace}
	switch len(args) {
	case 0:
		if filter.Empty() {
			return bad("explain needs a resource or a request")
		}
		return a, nil
	case 1:
		arg := strings.TrimSpace(args[0])
		switch {
		case strings.HasPrefix(arg, "/"):
			return bad("%q is a path: give its method too (explain GET %s)", arg, arg)
		case isHTTPMethod(arg):
			return bad("%s needs a PATH (explain %s /api/v1/namespaces/default/pods)", arg, arg)
		case arg == "":
			return bad("empty resource")
		}
		a.resource = arg
		return a, nil
	case 2:
		if !filter.Empty() {
			return bad("--resource and --group choose a resource: with METHOD PATH the path names it")
		}
		if namespace != "" {
			return bad("-n sets the namespace of the list explain builds for a resource: with METHOD PATH the path names it")
		}
		req, err := route.ParseRequest(args[0], args[1])
		if err != nil {
			return bad("%v", err)
		}
		a.req = &req
		return a, nil
	}
	return bad("%d arguments", len(args))
}

func isHTTPMethod(s string) bool {
	switch strings.ToUpper(s) {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// request is the request to explain: the one given, or the list of the resource found in
// snap. note receives what the user should know about a choice made (a version, an unknown
// scope).
func (a explainArgs) request(snap *snapshot.Snapshot, note func(string)) (route.Request, error) {
	if a.req != nil {
		return *a.req, nil
	}
	r, err := snap.ResolveResource(a.resource, a.filter)
	if err != nil {
		return route.Request{}, fmt.Errorf("%w: %s", err, explainFormsLine)
	}
	if r.Note != "" {
		note(r.Note)
	}
	ns := ""
	switch {
	case !r.Known && strings.Count(a.resource, "/") > 0:
		if near := cli.NearestName(r.GVR.String(), knownGVRs(snap)); near != "" {
			return route.Request{}, fmt.Errorf("no apiserver serves or lists %s: did you mean %s? (explain GET %s explains the request as it is)",
				r.GVR, near, route.CollectionPath(r.GVR, ""))
		}
		fallthrough
	case !r.Known:
		note(fmt.Sprintf("no server read serves or lists %s, so its scope is unknown: explaining the cluster-wide list", r.GVR))
	case r.Namespaced:
		ns = a.namespace
		if ns == "" {
			ns = defaultExplainNamespace
		}
	case a.namespace != "":
		note(fmt.Sprintf("%s is cluster-scoped: -n %s does not apply", r.GVR, a.namespace))
	}
	return route.ParseRequest(http.MethodGet, route.CollectionPath(r.GVR, ns))
}

// knownGVRs are the GVRs some server of snap serves or lists, as explain takes them.
func knownGVRs(snap *snapshot.Snapshot) []string {
	var out []string
	for g := range snap.Kinds() {
		out = append(out, g.String())
	}
	slices.Sort(out)
	return out
}

// explainStatuses are the statuses explain --fail-on takes: those the apiserver answers
// itself instead of serving a request.
var explainStatuses = []int{http.StatusNotFound, http.StatusServiceUnavailable}

// parseFailOnStatuses reads explain's --fail-on: HTTP statuses, each one of explainStatuses.
func parseFailOnStatuses(values []string) ([]int, error) {
	var out []int
	for _, v := range values {
		code, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || !slices.Contains(explainStatuses, code) {
			return nil, fmt.Errorf("--fail-on %q: want 404, 503 or both (404,503), the statuses an apiserver answers itself instead of serving a request", v)
		}
		out = append(out, code)
	}
	return out, nil
}
