package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/auditlog"
)

func parseRequestLine(line []byte) (TrafficRequest, bool, string) {
	f := strings.Fields(string(line))
	if len(f) != 2 {
		return TrafficRequest{}, false, "want METHOD PATH"
	}
	return TrafficRequest{Method: strings.ToUpper(f[0]), Path: f[1]}, true, ""
}

// auditEvent is the part of an audit.k8s.io/v1 Event replay needs.
type auditEvent struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	AuditID    string `json:"auditID"`
}

// verbMethod maps the audit event's Kubernetes verb back to the HTTP method, which is what the
// apiserver's RequestInfoFactory parses. Non-resource requests log the lowercase HTTP method.
func verbMethod(verb []byte) (string, bool) {
	switch string(verb) {
	case "get", "list", "watch":
		return "GET", true
	case "create":
		return "POST", true
	case "update":
		return "PUT", true
	case "patch":
		return "PATCH", true
	case "delete", "deletecollection":
		return "DELETE", true
	case "head":
		return "HEAD", true
	case "post":
		return "POST", true
	case "put":
		return "PUT", true
	case "options":
		return "OPTIONS", true
	}
	return "", false
}

// auditFields is what replay takes from an audit event. The byte slices alias the line or the
// scanner's buffer: copy them before the next line. received is the raw
// requestReceivedTimestamp, read by parseTimestamp only when a join needs it.
type auditFields struct {
	method                        string
	uri, agent, auditID, received []byte
	code                          int
}

// parseAuditLine reads an event with auditlog.Scan, and with encoding/json (the reference) when
// Scan declines the line: one that is malformed or unusual. skipped reports an event of a
// non-final stage.
func parseAuditLine(line []byte, f *auditlog.Fields) (ev auditFields, ok bool, why string, skipped bool) {
	if !auditlog.Scan(line, f) {
		return parseAuditLineJSON(line)
	}
	ev, ok, why, skipped = auditRequest(f.Kind, f.APIVersion, f.Stage, f.Verb, f.RequestURI, f.UserAgent, f.AuditID)
	if ok {
		if len(f.Code) > 0 {
			ev.code, _ = strconv.Atoi(string(f.Code))
		}
		ev.received = f.RequestReceivedTimestamp
	}
	return ev, ok, why, skipped
}

// parseTimestamp reads an RFC 3339 timestamp, or returns the zero time.
func parseTimestamp(s string) time.Time {
	if len(s) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// auditJoinFields are the fields of an event that join a proxied request's two events. They
// are decoded apart from auditEvent so that an odd value among them never makes a line
// malformed: it only leaves the join without them.
type auditJoinFields struct {
	Received       string `json:"requestReceivedTimestamp"`
	ResponseStatus struct {
		Code int32 `json:"code"`
	} `json:"responseStatus"`
}

func parseAuditLineJSON(line []byte) (auditFields, bool, string, bool) {
	var ev auditEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return auditFields{}, false, "not JSON: " + clip(err.Error()), false
	}
	f, ok, why, skipped := auditRequest([]byte(ev.Kind), []byte(ev.APIVersion), []byte(ev.Stage), []byte(ev.Verb), []byte(ev.RequestURI), []byte(ev.UserAgent), []byte(ev.AuditID))
	if ok {
		var j auditJoinFields
		if json.Unmarshal(line, &j) == nil {
			f.code, f.received = int(j.ResponseStatus.Code), []byte(j.Received)
		}
	}
	return f, ok, why, skipped
}

func auditRequest(kind, apiVersion, stage, verb, uri, agent, auditID []byte) (auditFields, bool, string, bool) {
	if string(kind) != "Event" || !bytes.HasPrefix(apiVersion, []byte("audit.k8s.io/")) {
		return auditFields{}, false, fmt.Sprintf("not an audit Event (kind %q, apiVersion %q)", kind, apiVersion), false
	}
	if len(stage) != 0 && string(stage) != "ResponseComplete" && string(stage) != "Panic" {
		return auditFields{}, false, "", true
	}
	method, ok := verbMethod(verb)
	if !ok || len(uri) == 0 {
		return auditFields{}, false, fmt.Sprintf("event without a known verb and requestURI (verb %q)", verb), false
	}
	return auditFields{method: method, uri: uri, agent: agent, auditID: auditID}, true, "", false
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
