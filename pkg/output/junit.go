package output

import (
	"encoding/xml"
	"io"
)

// JUnitCase is one test case: a check on one subject. Failure is empty for a pass.
type JUnitCase struct {
	Name      string
	ClassName string
	// FailureType is the failure's type attribute (e.g. a severity); empty for a pass.
	FailureType string
	Message     string
	Detail      string
	// Skipped, when set, marks a case that was not judged (e.g. an accepted risk), and why.
	Skipped string
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes one test suite in the JUnit XML format CI dashboards read. The XML encoder
// escapes markup; control characters, which XML cannot hold, are made Visible first.
func JUnit(w io.Writer, suite string, cases []JUnitCase) error {
	s := junitSuite{Name: suite, Tests: len(cases)}
	for _, c := range cases {
		jc := junitCase{Name: Visible(c.Name), ClassName: Visible(c.ClassName)}
		if c.FailureType != "" {
			jc.Failure = &junitFailure{Type: Visible(c.FailureType), Message: Visible(c.Message), Text: VisibleLines(c.Detail)}
			s.Failures++
		} else if c.Skipped != "" {
			jc.Skipped = &junitSkipped{Message: Visible(c.Skipped)}
			s.Skipped++
		}
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{Name: suite, Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
