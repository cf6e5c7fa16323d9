package render

import (
	"fmt"
	"io"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// writeProvisional says first that a result rests on a provisional profile: in one line
// (what it comes from, how many facts were derived), or, wide, with what it comes from, each
// fact derived from the release's modules, and what could not be derived (basis.ProvisionalLine).
func writeProvisional(w io.Writer, ps []basis.Provisional, wide bool) {
	for _, p := range ps {
		output.Fprintf(w, "%s\n", basis.ProvisionalLine(p, wide))
		if wide {
			printProvisionalFacts(w, "  ", p)
		}
	}
}

// writeAssumedStated says, before the result, what it assumed and what the installer stated:
// a line each (basis.AssumedLine, basis.StatedLine).
func writeAssumedStated(w io.Writer, r basis.RestsOn) {
	for _, a := range r.Assumptions {
		output.Fprintf(w, "%s\n", basis.AssumedLine(a))
	}
	for _, s := range r.Stated {
		output.Fprintf(w, "%s\n", basis.StatedLine(s))
	}
}

// writeProvisionalMarkdown is writeProvisional for a pull-request comment: the headline, and
// the facts folded away.
func writeProvisionalMarkdown(w io.Writer, ps []basis.Provisional) {
	for _, p := range ps {
		output.Fprintf(w, "**Provisional:** %s\n\n<details><summary>derived and not derived</summary>\n\n", p.Headline())
		printProvisionalFacts(w, "- ", p)
		fmt.Fprint(w, "\n</details>\n\n")
	}
}

// printProvisionalFacts lists what was derived and what could not be, each line after bullet.
func printProvisionalFacts(w io.Writer, bullet string, p basis.Provisional) {
	for _, d := range p.Derived {
		output.Fprintf(w, "%sderived: %s\n", bullet, d)
	}
	for _, d := range p.NotDerived {
		output.Fprintf(w, "%snot derived: %s\n", bullet, d)
	}
}

// provisionalExcept is the exception to "profiles are discovery of real apiservers".
func provisionalExcept(ps []basis.Provisional) string {
	if len(ps) == 0 {
		return ""
	}
	return ", except the provisional " + basis.ProvisionalNames(ps) + ": derived, no apiserver was run"
}
