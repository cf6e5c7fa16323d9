package render

import (
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/report"
)

// APIs prints rows of the lifecycle table (mvpctl apis).
type APIs struct {
	Modules []string
	Rows    []lifecycle.Row
	// At is the release the STATE column is judged at (zero: no column).
	At lifecycle.Release
}

// APILifecycleList is the structured form: the rows and the modules they were derived from.
type APILifecycleList struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Modules    []string        `json:"modules"`
	At         string          `json:"at,omitempty"`
	Items      []lifecycle.Row `json:"items"`
}

func (w APIs) Object() any {
	return APILifecycleList{APIVersion: report.APIVersion, Kind: "APILifecycleList", Modules: w.Modules, At: w.At.String(), Items: w.Rows}
}

func (w APIs) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Table is a row per API: APIVERSION, KIND, RESOURCE, INTRODUCED, DEPRECATED, REMOVED,
// REPLACEMENT, and STATE at --at; wide adds where the row was read and how its resource was named.
func (w APIs) Table(o output.Options) ([]string, [][]string) {
	headers := []string{"APIVERSION", "KIND", "RESOURCE", "INTRODUCED", "DEPRECATED", "REMOVED", "REPLACEMENT"}
	if !w.At.IsZero() {
		headers = append(headers, "STATE@"+w.At.String())
	}
	if o.Wide() {
		headers = append(headers, "SOURCE", "RESOURCE-FROM")
	}
	rows := [][]string{}
	for _, r := range w.Rows {
		repl := ""
		if r.Replacement != nil {
			repl = r.Replacement.String()
		}
		row := []string{r.APIVersion(), r.Kind, orDash(r.Resource), orDash(r.Introduced.String()), orDash(r.Deprecated.String()), orDash(r.Removed.String()), orDash(repl)}
		if !w.At.IsZero() {
			row = append(row, string(r.At(w.At)))
		}
		if o.Wide() {
			row = append(row, r.Source, orDash(r.ResourceFrom))
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Names are the rows' GVRs (group/version/resource), or apiVersion/Kind for a List kind.
func (w APIs) Names() []string {
	names := make([]string, 0, len(w.Rows))
	for _, r := range w.Rows {
		if n := r.GVR(); n != "" {
			names = append(names, n)
		} else {
			names = append(names, r.APIVersion()+"/"+r.Kind)
		}
	}
	return names
}

// lifecycleLine is what explain says of a resource's lifecycle: "Lifecycle: batch/v1beta1
// CronJob introduced in 1.8, deprecated in 1.21, removed in 1.25; replacement batch/v1 CronJob
// (k8s.io/api@v0.37.2)"; "" without one.
func lifecycleLine(r *lifecycle.Row) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, p := range []struct {
		what string
		rel  lifecycle.Release
	}{{"introduced in", r.Introduced}, {"deprecated in", r.Deprecated}, {"removed in", r.Removed}} {
		if !p.rel.IsZero() {
			parts = append(parts, p.what+" "+p.rel.String())
		}
	}
	s := "Lifecycle: " + r.GVK.String() + " " + strings.Join(parts, ", ")
	if r.Replacement != nil {
		s += "; replacement " + r.Replacement.String()
	}
	return s + " (" + r.Source + ")"
}
