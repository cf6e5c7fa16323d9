package route

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
	// methods (request.go) as ParseRequest accepts them, upper case; TestClassifyRequestMethods
	// keeps the two lists equal.
	switch method {
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
	// One pass over the path: its segments, and where the first empty one is.
	var segs [9][]byte // the factory looks at no more than nine segments (see classifyParts)
	n, start, end, double := 0, 1, len(target), -1
loop:
	for i := 1; i < len(target); i++ {
		switch pathByte[target[i]] {
		case plainByte:
		case slashByte:
			if i == start {
				if double < 0 {
					double = i
				}
			} else if n < len(segs) {
				segs[n] = target[start:i]
				n++
			}
			start = i + 1
		case queryByte:
			end = i
			for _, b := range target[i:] {
				if pathByte[b] == stopByte && b != '%' && b < 0x80 {
					return c, false // url.Parse rejects control characters; '#' starts a fragment
				}
			}
			break loop
		default:
			return c, false // '%' or non-ASCII: url.Parse decodes or checks it; '#', control characters
		}
	}
	if start < end && n < len(segs) {
		segs[n] = target[start:end]
		n++
	}
	// ParseRequest rejects an empty segment, but for a trailing "//" (it trims one "/" before
	// it looks, and RequestInfoFactory all of them).
	if double >= 0 && double < end-1 {
		return c, false
	}
	// Only /api and /apis, alone or followed by "/": other paths, such as /healthz or /apix,
	// are ParseRequest's to accept or reject (with its memo in replay).
	if n == 0 || (string(segs[0]) != "api" && string(segs[0]) != "apis") {
		return c, false
	}
	return classifyParts(segs[:n]), true
}

// What a byte of the path is to ClassifyRequest.
const (
	plainByte = iota
	slashByte
	queryByte
	stopByte // ends the fast path: control characters, '#', '%' and non-ASCII bytes
)

var pathByte = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == '/':
			t[c] = slashByte
		case c == '?':
			t[c] = queryByte
		case c < ' ' || c == 0x7f || c == '#' || c == '%' || c >= 0x80:
			t[c] = stopByte
		}
	}
	return
}()

// classifyParts is k8s.io/apiserver's RequestInfoFactory.NewRequestInfo (as configured in
// requestInfoFactory: prefixes api and apis, api groupless) reduced to its kind, group,
// version, resource and subresource, over the segments of the path (strings.Split of it
// without its leading and trailing slashes), of which it needs no more than the first nine:
// apis, group, version, a verb, namespaces, the namespace, resource, name, subresource.
func classifyParts(cur [][]byte) (c RequestClass) {
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
