package preflight

import (
	"bytes"
	"encoding/json"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/report"
)

// verdictDoc is a Verdict as -o json|yaml print it: the exit class by its name in the
// report's contract (pass, incomplete, blocking), what the run rests on as the lines of its
// caveats (the assumptions, the provisional profiles' versions, what was not read).
type verdictDoc struct {
	Result      Result   `json:"result"`
	FailOn      FailOn   `json:"failOn"`
	Exit        string   `json:"exit"`
	Blocking    int      `json:"blocking"`
	Warning     int      `json:"warning"`
	Assumptions []string `json:"assumptions,omitempty"`
	Provisional []string `json:"provisional,omitempty"`
	Partial     []string `json:"partial,omitempty"`
	Reason      string   `json:"reason"`
}

// exitNames are the names of the exit classes in a report: a partial run and one with
// warnings at --fail-on warning both end "incomplete" (exit 2).
var exitNames = map[report.Class]string{report.OK: "pass", report.Partial: "incomplete", report.Warnings: "incomplete", report.Blocking: "blocking"}

// MarshalJSON writes the verdict's document (verdictDoc), with <, > and & as they are.
func (v Verdict) MarshalJSON() ([]byte, error) {
	doc := verdictDoc{Result: v.Result, FailOn: v.FailOn, Exit: exitNames[v.Exit], Blocking: v.Blocking, Warning: v.Warning,
		Assumptions: v.RestsOn.Assumptions, Partial: v.Partial(), Reason: v.Reason}
	for _, p := range v.RestsOn.Provisional {
		doc.Provisional = append(doc.Provisional, p.Version)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a verdict's document back: the lines of what was not read are kept as
// read (basis.Reads.Also), a provisional profile by its version.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var doc verdictDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	*v = Verdict{Result: doc.Result, FailOn: doc.FailOn, Blocking: doc.Blocking, Warning: doc.Warning, Reason: doc.Reason,
		RestsOn: basis.RestsOn{Assumptions: doc.Assumptions}}
	for _, line := range doc.Partial {
		v.RestsOn = v.RestsOn.WithReads(basis.ReadLine(line))
	}
	for _, p := range doc.Provisional {
		v.RestsOn.Provisional = append(v.RestsOn.Provisional, basis.Provisional{Version: p})
	}
	switch {
	case doc.Exit == exitNames[report.Blocking]:
		v.Exit = report.Blocking
	case doc.Exit == exitNames[report.Partial] && doc.Result == ResultPartial:
		v.Exit = report.Partial
	case doc.Exit == exitNames[report.Warnings]:
		v.Exit = report.Warnings
	}
	return nil
}
