package preflight

import (
	"fmt"
	"strings"
)

// ObjectsSummary counts the objects read and their verdicts.
type ObjectsSummary struct {
	Objects int `json:"objects"`
	Files   int `json:"files"`
	// Live are the live objects among Objects (judged by their last-applied-configuration).
	Live int `json:"live,omitempty"`
	// Skipped are files of a directory that are not manifests; Unreadable documents that did
	// not parse.
	Skipped int `json:"skipped,omitempty"`
	// SkippedFiles names the first few skipped files (maxSkippedNamed).
	SkippedFiles []string      `json:"skippedFiles,omitempty"`
	Unreadable   int           `json:"unreadable,omitempty"`
	Counts       []ObjectCount `json:"counts"`
}

// ObjectCount is how many objects got one verdict (and, removed or deprecated, in one release).
type ObjectCount struct {
	Verdict ObjectVerdict `json:"verdict"`
	Release string        `json:"release,omitempty"`
	N       int           `json:"n"`
}

// Line is the summary in one line: "11 objects in 4 files: 7 served by the target, 2 removed
// in 1.22, 1 deprecated in 1.33, 1 of an unknown kind".
func (s ObjectsSummary) Line() string {
	var parts []string
	for _, c := range s.Counts {
		var what string
		switch c.Verdict {
		case ObjectServed:
			what = "served by every stage"
		case ObjectDeprecated:
			what = "deprecated in " + c.Release
			if c.Release == "" {
				what = "deprecated by their CRD"
			}
		case ObjectRemoved:
			what = "removed in " + c.Release
		case ObjectNotServed:
			what = "not served by some stage"
		case ObjectMisspelt:
			what = "misspelt"
		case ObjectUnknownKind:
			what = "of an unknown kind"
		case ObjectNotJudged:
			what = "not judged"
		}
		parts = append(parts, fmt.Sprintf("%d %s", c.N, what))
	}
	line := fmt.Sprintf("%d object(s) in %d file(s)", s.Objects-s.Live, s.Files)
	switch {
	case s.Live > 0 && s.Objects == s.Live && s.Files == 0:
		line = fmt.Sprintf("%d live object(s) (by their last-applied-configuration)", s.Live)
	case s.Live > 0:
		line += fmt.Sprintf(" and %d live object(s) (by their last-applied-configuration)", s.Live)
	}
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if s.Unreadable > 0 {
		line += fmt.Sprintf("; %d document(s) not read (they do not parse)", s.Unreadable)
	}
	if s.Skipped > 0 {
		names := strings.Join(s.SkippedFiles, ", ")
		if more := s.Skipped - len(s.SkippedFiles); more > 0 {
			names += fmt.Sprintf(", … (%d more)", more)
		}
		line += fmt.Sprintf("; %d file(s) skipped (not .yaml, .yml or .json: %s)", s.Skipped, names)
	}
	return line
}

// maxSkippedNamed is how many skipped files the summary names.
const maxSkippedNamed = 3
