package probe

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ReportKind is the kind of the structured probe report (apiVersion report.APIVersion).
const ReportKind = "ProbeReport"

// Verdict compares one observation with its prediction.
type Verdict string

const (
	// VerdictMatch: the observed outcome is one the prediction allows.
	VerdictMatch Verdict = "match"
	// VerdictMismatch: the server did something else than predicted.
	VerdictMismatch Verdict = "mismatch"
	// VerdictLoopViolation: the server forwarded a request that carried the loop-prevention
	// header (it must handle such a request itself).
	VerdictLoopViolation Verdict = "loop-header-violation"
	// VerdictInconclusive: the answers say nothing about routing — both requests were denied
	// (401/403, decided before the proxy), throttled (429) or failed alike (5xx).
	VerdictInconclusive Verdict = "inconclusive"
	// VerdictError: a request could not be sent or got no answer (timeout, connection refused
	// by the server itself).
	VerdictError Verdict = "error"
	// VerdictNotMeasured: the run stopped (Ctrl-C, total time bound) before this measurement.
	VerdictNotMeasured Verdict = "not-measured"
)

// Report is the result of a probe run: kind ProbeReport.
type Report struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Snapshot   route.SnapshotRef `json:"snapshot"`
	StartedAt  time.Time         `json:"startedAt"`
	FinishedAt time.Time         `json:"finishedAt"`
	Settings   Settings          `json:"settings"`
	// Interrupted is set when the run stopped before every measurement was made; the reason is
	// "interrupted" (context cancelled, e.g. Ctrl-C) or "total time bound (5m0s) reached".
	Interrupted string `json:"interrupted,omitempty"`
	// Partial is true when something was not probed: a server, or some measurement.
	Partial bool `json:"partial"`

	Servers []ServerReport `json:"servers"`
	// GVRs are the selected group/version/resources, with why each was selected.
	GVRs []Target `json:"gvrs"`
	// Skipped are selected GVRs with no verb the probe may send (e.g. create-only resources
	// without --write-dry-run).
	Skipped []Skipped `json:"skipped,omitempty"`
	Results []Result  `json:"results"`
	// LoopHeaderViolations lists every result whose server forwarded a request that carried
	// the loop-prevention header.
	LoopHeaderViolations []LoopViolation `json:"loopHeaderViolations"`
	Summary              Summary         `json:"summary"`
	// Notes are remarks about the run as a whole (e.g. TLS verification off, an old snapshot).
	Notes []string `json:"notes,omitempty"`
}

// Settings echoes what the run was asked to do.
type Settings struct {
	Namespace      string  `json:"namespace"`
	ProxiedHeader  string  `json:"proxiedHeader"`
	WriteDryRun    bool    `json:"writeDryRun"`
	AbsentName     string  `json:"absentName"`
	Concurrency    int     `json:"concurrency"`
	QPS            float64 `json:"qps"`
	RequestTimeout string  `json:"requestTimeout"`
	TotalTimeout   string  `json:"totalTimeout"`
	Selection      string  `json:"selection"`
	InsecureTLS    bool    `json:"insecureSkipTLSVerify,omitempty"`
}

// ServerReport is one apiserver of the snapshot.
type ServerReport struct {
	Name     string `json:"name"`
	ID       string `json:"id,omitempty"`
	Version  string `json:"version,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Probed is false when no request could be sent to the server; Error says why.
	Probed bool   `json:"probed"`
	Error  string `json:"error,omitempty"`
	// TLSServerName is the name the serving certificate was verified against, when it was not
	// the endpoint's host.
	TLSServerName string `json:"tlsServerName,omitempty"`
	// Requests counts the HTTP requests sent to the server during the measurements.
	Requests int `json:"requests"`
	// Metrics is the peer-proxy evidence of /metrics before and after the run.
	Metrics *MetricsEvidence `json:"metrics,omitempty"`
}

// Target is one selected group/version/resource.
type Target struct {
	GVR        snapshot.GVR `json:"gvr"`
	Name       string       `json:"name"`
	Kind       string       `json:"kind,omitempty"`
	Namespaced bool         `json:"namespaced"`
	Verbs      []string     `json:"verbs,omitempty"`
	// ServedBy are the reachable servers whose own discovery lists the GVR.
	ServedBy []string `json:"servedBy"`
	// Why says why the GVR was selected.
	Why string `json:"why"`
}

// Skipped is a selected GVR that was not probed.
type Skipped struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Result is one server × GVR × verb: what was predicted, what happened, and the verdict.
type Result struct {
	Server string       `json:"server"`
	GVR    snapshot.GVR `json:"gvr"`
	Name   string       `json:"name"`
	Verb   string       `json:"verb"`
	Method string       `json:"method"`
	// Path is the request path with its query, as sent.
	Path      string     `json:"path"`
	Predicted Prediction `json:"predicted"`
	Observed  Measured   `json:"observed"`
	Verdict   Verdict    `json:"verdict"`
	// Note explains the verdict when it is not a plain match.
	Note string `json:"note,omitempty"`
	// Diagnosis lists the likely causes of a mismatch, most likely first.
	Diagnosis []mvp.Cause `json:"diagnosis,omitempty"`
}

// Prediction is pkg/route's decision for the request, and what it lets a client observe.
type Prediction struct {
	Outcome     mvp.Outcome        `json:"outcome"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	// Peers are the candidate peers' names.
	Peers []string `json:"peers,omitempty"`
	// Text is the table form: local, proxy→kas-a, 404, 503 (transport)...
	Text         string   `json:"text"`
	Reason       string   `json:"reason"`
	Inferred     bool     `json:"inferred,omitempty"`
	Alternatives []string `json:"alternatives,omitempty"`
	// Expect lists the observable outcomes the prediction allows (local, proxied, not-found,
	// unavailable/transport, unavailable/endpoint-resolution). A request proxied to a peer that
	// does not serve the GVR itself is observed as not-found (the peer's own 404).
	Expect []string `json:"expect"`
}

// Measured is what the two requests (normal, then forced local) showed.
type Measured struct {
	// Outcome is local, proxied, not-found, unavailable or unknown; empty when not measured.
	Outcome     mvp.Outcome        `json:"outcome,omitempty"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	// By are the other servers that answered the same request by themselves (forced local)
	// with a handler: for a proxied request, the peers that can have served it.
	By []string `json:"by,omitempty"`
	// Text is the table form: local, proxied, proxy→kas-a, 404, 503 (transport)...
	Text string `json:"text"`
	// Normal and ForcedLocal are the two responses.
	Normal      *Response `json:"normal,omitempty"`
	ForcedLocal *Response `json:"forcedLocal,omitempty"`
	Why         string    `json:"why,omitempty"`
	// Error is why the measurement failed (VerdictError, VerdictNotMeasured).
	Error string `json:"error,omitempty"`
}

// Response is one HTTP answer, classified.
type Response struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType,omitempty"`
	Class       Class  `json:"class"`
	Reason      string `json:"reason,omitempty"`
	Message     string `json:"message,omitempty"`
	Why         string `json:"why"`
	// Millis is how long the request took.
	Millis int64 `json:"millis"`
	// Truncated: the answer was longer than MaxBody and was read to there only. A cut 2xx,
	// 401 or 403 is still classified by its status; any other is of class error.
	Truncated bool `json:"truncated,omitempty"`
}

// LoopViolation is one request with the loop-prevention header that a server forwarded.
type LoopViolation struct {
	Server string `json:"server"`
	Name   string `json:"name"`
	Verb   string `json:"verb"`
	Path   string `json:"path"`
	Header string `json:"header"`
	// Status is what the forced-local request got (from a handler the server does not have).
	Status int    `json:"status"`
	Why    string `json:"why"`
}

// Summary counts the results.
type Summary struct {
	Results        int `json:"results"`
	Match          int `json:"match"`
	Mismatch       int `json:"mismatch"`
	LoopViolations int `json:"loopHeaderViolations"`
	Inconclusive   int `json:"inconclusive"`
	Errors         int `json:"errors"`
	NotMeasured    int `json:"notMeasured"`
	// ServersNotProbed counts servers of the snapshot no request reached.
	ServersNotProbed int `json:"serversNotProbed"`
	Requests         int `json:"requests"`
	// Truncated counts the results with an answer cut at MaxBody.
	Truncated int `json:"truncated,omitempty"`
}

// Findings reports whether any mismatch or loop-header violation was found (exit 3).
func (r *Report) Findings() bool { return r.Summary.Mismatch > 0 || r.Summary.LoopViolations > 0 }
