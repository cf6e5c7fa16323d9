package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
)

// WriteProvisional says first that a result rests on a provisional profile: in one line
// (what it comes from, how many facts were derived), or, wide, with what it comes from, each
// fact derived from the release's modules, and what could not be derived.
func WriteProvisional(w io.Writer, ps []profile.Provisional, wide bool) {
	for _, p := range ps {
		if !wide {
			output.Fprintf(w, "PROVISIONAL %s; -o wide lists them\n", p.Summary())
			continue
		}
		output.Fprintf(w, "PROVISIONAL %s\n", p.Headline())
		printProvisionalFacts(w, "  ", p)
	}
}

// WriteProvisionalMarkdown is WriteProvisional for a pull-request comment: the headline, and
// the facts folded away.
func WriteProvisionalMarkdown(w io.Writer, ps []profile.Provisional) {
	for _, p := range ps {
		output.Fprintf(w, "**Provisional:** %s\n\n<details><summary>derived and not derived</summary>\n\n", p.Headline())
		printProvisionalFacts(w, "- ", p)
		fmt.Fprint(w, "\n</details>\n\n")
	}
}

// printProvisionalFacts lists what was derived and what could not be, each line after bullet.
func printProvisionalFacts(w io.Writer, bullet string, p profile.Provisional) {
	for _, d := range p.Derived {
		output.Fprintf(w, "%sderived: %s\n", bullet, d)
	}
	for _, d := range p.NotDerived {
		output.Fprintf(w, "%snot derived: %s\n", bullet, d)
	}
}

// provisionalExcept is the exception to "profiles are discovery of real apiservers".
func provisionalExcept(ps []profile.Provisional) string {
	if len(ps) == 0 {
		return ""
	}
	return ", except the provisional " + ProvisionalNames(ps) + ": derived, no apiserver was run"
}

// ProvisionalNames are the versions of the provisional profiles ps, comma-separated.
func ProvisionalNames(ps []profile.Provisional) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Version
	}
	return strings.Join(names, ", ")
}
