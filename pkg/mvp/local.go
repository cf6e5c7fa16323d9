package mvp

// LocalRule is the rule that decides that a request is handled locally before any peer is
// looked for (docs/behaviour.md §2, steps 0–3; peerproxy_handler.go, WrapHandler): there is no
// proxy filter (hasProxy: the version has one; filterInstalled: gate on and --peer-ca-file
// set), it is not a resource request, or it carries LoopPreventionHeader. ok is false when the
// filter goes on to look for peers; a request is then local when the server serves the GVR
// itself (its discovery, or its StorageVersion entry), its group/version is excluded
// (Era.ExcludesCRDsAndAPIServices), or no peer serves it. The local handler chain may still
// answer 404 (notfound.go) or its aggregator 503 (aggregated.go).
func LocalRule(hasProxy, filterInstalled, resourceRequest, loopHeader bool) (rule Rule, ok bool) {
	switch {
	case !hasProxy:
		return RuleNoProxy, true
	case !filterInstalled:
		return RuleFilter, true
	case !resourceRequest:
		return RuleNonResource, true
	case loopHeader:
		return RuleLoopHeader, true
	}
	return "", false
}
