package route

import "bytes"

// RequestKind is what a request is to the router: a resource request, a non-resource request
// (discovery, health, version, metrics), or one the apiserver's parser rejects.
type RequestKind uint8

// Request kinds.
const (
	KindUnparsable RequestKind = iota
	KindNonResource
	KindResource
)

// RequestClass is the part of a parsed request a routing decision depends on
// (docs/behaviour.md §2 step 5): for a resource request its group, version, resource and
// subresource. The byte slices alias the target given to ClassifyRequest.
type RequestClass struct {
	Kind                                  RequestKind
	Group, Version, Resource, Subresource []byte
}

// ClassifyRequest is ParseRequest for callers that need only the RequestClass, such as the
// replay of an audit log, which classifies every event: it allocates nothing. It gives exactly
// the kind, group, version, resource and subresource ParseRequest would (FuzzClassifyRequest
// compares the two), for the shapes clients send — a method ParseRequest accepts in upper
// case, and a target that starts with /api or /apis, with no %-escape, fragment, control
// character or non-ASCII byte in its path. For any other target it returns ok false, and the
// caller must use ParseRequest.
//
// Only the path decides the class: the query changes RequestInfoFactory's verb (list or
// watch) and name (a fieldSelector on metadata.name), never its group, version, resource or
// subresource, and url.Parse rejects nothing in the query but control characters.
func ClassifyRequest(method string, target []byte) (c RequestClass, ok bool) {
	switch method { // methods, in ParseRequest's spelling
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT":
	default:
		return c, false
	}
	// A target that starts with "/" and not "//" has no scheme and no authority for url.Parse;
	// one that ends in a printable ASCII byte has nothing for strings.TrimSpace to trim.
	if len(target) < 4 || target[0] != '/' || target[1] == '/' {
		return c, false
	}
	if last := target[len(target)-1]; last <= ' ' || last >= 0x7f {
		return c, false
	}
	path := target
	double := -1 // where the first "//" of the path ends
	for i, b := range target {
		if b == '/' && i > 0 && target[i-1] == '/' && double < 0 {
			double = i
		}
		if pathStop[b] {
			if b != '?' {
				return c, false // '%' or non-ASCII: url.Parse decodes or checks it; '#', control characters
			}
			path = target[:i]
			for _, b := range target[i:] {
				if queryStop[b] {
					return c, false // url.Parse rejects control characters; '#' starts a fragment
				}
			}
			break
		}
	}
	if !bytes.HasPrefix(path, []byte("/api")) {
		return c, false // non-resource paths such as /healthz: ParseRequest (and its memo)
	}
	if rest := path[4:]; !(len(rest) == 0 || rest[0] == '/' || (rest[0] == 's' && (len(rest) == 1 || rest[1] == '/'))) {
		return c, false // e.g. /apix: not a Kubernetes path, ParseRequest says so
	}
	if double >= 0 && double < len(path)-1 {
		return c, false // ParseRequest rejects an empty segment (but for a trailing "//")
	}
	return classifyPath(bytes.Trim(path, "/")), true
}

// queryStop marks the bytes that end the fast path in a query: control characters and '#';
// pathStop adds '?' (the end of the path), '%' and non-ASCII bytes.
var queryStop, pathStop = func() (q, p [256]bool) {
	for c := range 256 {
		q[c] = c < ' ' || c == 0x7f || c == '#'
		p[c] = q[c] || c == '?' || c == '%' || c >= 0x80
	}
	return
}()

// classifyPath is k8s.io/apiserver's RequestInfoFactory.NewRequestInfo (as configured in
// requestInfoFactory: prefixes api and apis, api groupless) reduced to its kind, group,
// version, resource and subresource, over the path without its leading and trailing slashes.
func classifyPath(p []byte) (c RequestClass) {
	// The factory looks at no more than nine segments: apis, group, version, a verb, namespaces,
	// the namespace, resource, name, subresource.
	var parts [9][]byte
	n := 0
	start := 0
	for i := 0; i <= len(p) && n < len(parts); i++ {
		if i == len(p) || p[i] == '/' {
			parts[n] = p[start:i]
			n++
			start = i + 1
		}
	}
	cur := parts[:n]
	if len(cur) < 3 {
		return RequestClass{Kind: KindNonResource}
	}
	prefix := string(cur[0])
	if prefix != "api" && prefix != "apis" {
		return RequestClass{Kind: KindNonResource}
	}
	cur = cur[1:]
	if prefix == "apis" {
		if len(cur) < 3 {
			return RequestClass{Kind: KindNonResource}
		}
		c.Group, cur = cur[0], cur[1:]
	}
	c.Kind = KindResource
	c.Version, cur = cur[0], cur[1:]
	proxyVerb := false
	if v := string(cur[0]); v == "proxy" || v == "watch" { // specialVerbs
		if len(cur) < 2 {
			return RequestClass{Kind: KindUnparsable} // "unable to determine kind and namespace"
		}
		proxyVerb, cur = v == "proxy", cur[1:]
	}
	if string(cur[0]) == "namespaces" {
		if len(cur) > 2 && string(cur[2]) != "status" && string(cur[2]) != "finalize" { // namespaceSubresources
			cur = cur[2:]
		}
	}
	if len(cur) >= 3 && !proxyVerb { // specialVerbsNoSubresources
		c.Subresource = cur[2]
	}
	c.Resource = cur[0]
	return c
}
