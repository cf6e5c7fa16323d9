package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
)

// printProvisional says first that a result rests on a provisional profile: in one line
// (what it comes from, how many facts were derived), or, wide, with what it comes from, each
// fact derived from the release's modules, and what could not be derived.
func printProvisional(w io.Writer, ps []profile.Provisional, wide bool) {
	for _, p := range ps {
		if !wide {
			output.Fprintf(w, "PROVISIONAL %s; -o wide lists them\n", p.Summary())
			continue
		}
		output.Fprintf(w, "PROVISIONAL %s\n", p.Headline())
		printProvisionalFacts(w, "  ", p)
	}
}

// printProvisionalMarkdown is printProvisional for a pull-request comment: the headline, and
// the facts folded away.
func printProvisionalMarkdown(w io.Writer, ps []profile.Provisional) {
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

// provisionalReason is why a result that rests on a provisional profile is not a success.
func provisionalReason(ps []profile.Provisional) string {
	if len(ps) == 0 {
		return ""
	}
	return fmt.Sprintf("it rests on the provisional profile %s (the PROVISIONAL lines)", provisionalNames(ps))
}

// provisionalExcept is the exception to "profiles are discovery of real apiservers".
func provisionalExcept(ps []profile.Provisional) string {
	if len(ps) == 0 {
		return ""
	}
	return ", except the provisional " + provisionalNames(ps) + ": derived, no apiserver was run"
}

func provisionalNames(ps []profile.Provisional) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Version
	}
	return strings.Join(names, ", ")
}

// provisionalProfileResult is `profiles show`'s result: a provisional profile is shown, but
// what it says rests on published modules, not on a recorded apiserver.
func provisionalProfileResult(p profile.Profile) error {
	if p.Provisional == nil {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("profile %s is provisional: derived from the recorded %s and published modules, no %s kube-apiserver was run (`-o yaml` lists what was derived and what not; docs/profiles.md)", p.Version, p.Provisional.Base, p.Version.MinorString()))
}
