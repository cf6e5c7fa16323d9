package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ProfileList prints the list of profiles in use (profiles list).
type ProfileList struct{ List profile.List }

func (w ProfileList) Object() any { return w.List }

// WriteText prints the table with each source — how the profiles were recorded, the same
// sentence for most — once, as a numbered note under it, the row naming its kind and note
// (-o csv and json keep every source whole).
func (w ProfileList) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	var notes []string
	for i, p := range w.List.Items {
		how := strings.Join(strings.Fields(strings.Replace(p.Source, p.Version, "", 1)), " ")
		how = strings.Replace(how, " :", ":", 1)
		n := slices.Index(notes, how)
		if n < 0 {
			notes = append(notes, how)
			n = len(notes) - 1
		}
		kind, _, _ := strings.Cut(p.Source, " ")
		rows[i][len(rows[i])-1] = fmt.Sprintf("%s [%d]", kind, n+1)
	}
	if err := output.Table(out, headers, rows, o.NoHeaders); err != nil {
		return err
	}
	for i, how := range notes {
		output.Fprintf(out, "[%d] %s\n", i+1, how)
	}
	return nil
}

// Table is a row per profile; it has no wide columns.
func (w ProfileList) Table(output.Options) ([]string, [][]string) {
	rows := [][]string{}
	for _, p := range w.List.Items {
		rows = append(rows, []string{p.Version, fmt.Sprint(p.Resources), p.TakenAt, p.From, p.Source})
	}
	return []string{"VERSION", "RESOURCES", "TAKEN", "FROM", "SOURCE"}, rows
}

// Names are the profiles' versions, what profiles show and --to take.
func (w ProfileList) Names() []string {
	names := make([]string, len(w.List.Items))
	for i, p := range w.List.Items {
		names[i] = p.Version
	}
	return names
}

// Profile prints one profile (profiles show): its resources, or, structured, a snapshot of its one
// server (which --snapshot reads).
type Profile struct{ Profile profile.Profile }

func (w Profile) Object() any {
	s := snapshot.New()
	s.Source = w.Profile.Source
	s.Servers = []snapshot.Server{w.Profile.Server}
	return s
}

func (w Profile) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Table is a row per resource: its GVR and scope, one line within 100 columns; wide adds
// its kind, verbs and subresources (status, scale, ...), as kubectl api-resources -o wide
// adds its verbs.
func (w Profile) Table(o output.Options) ([]string, [][]string) {
	headers := []string{"NAME", "SCOPE"}
	if o.Wide() {
		headers = append(headers, "KIND", "VERBS", "SUBRESOURCES")
	}
	rows := [][]string{}
	for _, r := range w.Profile.Resources {
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		row := []string{r.GVR().String(), scope}
		if o.Wide() {
			row = append(row, r.Kind, strings.Join(r.Verbs, ","), strings.Join(r.Subresources, ","))
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Names are the profile's GVRs.
func (w Profile) Names() []string {
	names := make([]string, len(w.Profile.Resources))
	for i, r := range w.Profile.Resources {
		names[i] = r.GVR().String()
	}
	return names
}
