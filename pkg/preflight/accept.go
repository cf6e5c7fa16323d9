package preflight

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/textsafe"
)

// Accepted risks: rules that accept findings by check ID and subject (--ignore, a baseline
// file, .mvpctl-ignore). An accepted finding is listed apart, with the rule that accepted it,
// and does not count towards the result; a rule that accepts nothing is reported as stale.
//
// The file format is one rule a line, so that an error can name its line and a review diff
// shows one risk a line:
//
//	# a comment
//	ID[:SUBJECT]   [# [YYYY-MM-DD] reason]
//
// SUBJECT may hold * (any run of characters, / included) and ? (one character); \*, \?, \#
// and \\ are those characters themselves, \xHH and \uHHHH a character a rule cannot hold
// as it is (acceptkey.go). The key of a finding (Finding.Key) is its subject so escaped.

// AcceptRule accepts the findings of one check whose subject matches.
type AcceptRule struct {
	Check string `json:"check"`
	// Subject is the subject (or a glob of it) the rule accepts; empty: every subject.
	Subject string `json:"subject,omitempty"`
	// Date is when the risk was accepted (YYYY-MM-DD), and Reason why, from the comment.
	Date   string `json:"date,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Source says where the rule is: "--ignore", or FILE:LINE.
	Source string `json:"source"`

	match *subjectGlob
}

// AcceptedFinding is a finding an accept rule accepted.
type AcceptedFinding struct {
	Finding
	AcceptedBy AcceptRule `json:"acceptedBy"`
}

// Key is the rule as it is written: ID or ID:SUBJECT.
func (r AcceptRule) Key() string {
	if r.Subject == "" {
		return r.Check
	}
	return r.Check + ":" + r.Subject
}

// Matches reports whether the rule accepts f.
func (r AcceptRule) Matches(f Finding) bool {
	return r.Check == f.Check && (r.match == nil || r.match.MatchString(f.Subject))
}

// Key is what accepts exactly this finding: ID:SUBJECT, the rule that names its check and
// subject (written in one place: AcceptRule.Key).
func (f Finding) Key() string {
	return AcceptRule{Check: f.Check, Subject: EscapeSubject(f.Subject)}.Key()
}

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// ParseAcceptRule reads ID[:SUBJECT] (the form of --ignore and of a file's line, without its
// comment). source is where it was written, for errors and the report.
func ParseAcceptRule(s, source string) (AcceptRule, error) {
	if err := checkRuleText(s); err != nil {
		return AcceptRule{}, fmt.Errorf("%q: %w", s, err)
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t") {
		return AcceptRule{}, fmt.Errorf("%q: want ID[:SUBJECT], e.g. MVP011:batch/v1beta1/cronjobs (one rule, no spaces)", s)
	}
	id, subject, _ := strings.Cut(s, ":")
	known := false
	for _, c := range Checks {
		known = known || c.ID == id
	}
	if !known {
		ids := make([]string, len(Checks))
		for i, c := range Checks {
			ids[i] = c.ID
		}
		return AcceptRule{}, fmt.Errorf("%q: unknown check %q (checks: %s)", s, id, strings.Join(ids, ", "))
	}
	r := AcceptRule{Check: id, Subject: subject, Source: source}
	if subject != "" {
		m, err := subjectPattern(subject)
		if err != nil {
			return AcceptRule{}, fmt.Errorf("%q: %w", s, err)
		}
		r.match = m
	}
	return r, nil
}

// maxAcceptLine bounds a line of an accept file: a longer one is not a rule someone wrote.
const maxAcceptLine = 64 << 10

// ParseAcceptFile reads the rules of an accept file; name is used in errors ("NAME:LINE:
// what is wrong") and as the rules' source.
func ParseAcceptFile(r io.Reader, name string) ([]AcceptRule, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxAcceptLine)
	var rules []AcceptRule
	for n := 1; sc.Scan(); n++ {
		source := fmt.Sprintf("%s:%d", name, n)
		if strings.IndexByte(sc.Text(), 0) >= 0 {
			return nil, fmt.Errorf("%s: holds a NUL byte: not a file of accept rules (one ID[:SUBJECT] a line, text)", source)
		}
		rule, comment := cutComment(sc.Text())
		if strings.TrimSpace(rule) == "" {
			continue
		}
		ar, err := ParseAcceptRule(rule, source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		comment = strings.TrimSpace(comment)
		if d, rest, _ := strings.Cut(comment, " "); dateRE.MatchString(d) {
			if _, err := time.Parse(time.DateOnly, d); err != nil {
				return nil, fmt.Errorf("%s: date %q: want YYYY-MM-DD", source, d)
			}
			ar.Date, comment = d, strings.TrimSpace(rest)
		}
		ar.Reason = comment
		rules = append(rules, ar)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w (a line longer than %d bytes?)", name, err, maxAcceptLine)
	}
	return rules, nil
}

// accept moves the findings some rule matches (the first, in the order given) to Accepted,
// and lists the rules that matched nothing as StaleAccepts.
func (r *Report) accept(rules []AcceptRule) {
	used := make([]bool, len(rules))
	kept := r.Findings[:0:0]
	for _, f := range r.Findings {
		i := firstMatch(rules, f)
		if i < 0 { // an old per-server MVP010 rule (legacy.go)?
			old, covered := legacyMatch(rules, f)
			for _, j := range old {
				used[j] = true
			}
			if covered {
				i = old[0]
			}
		}
		if i < 0 {
			kept = append(kept, f)
			continue
		}
		used[i] = true
		r.Accepted = append(r.Accepted, AcceptedFinding{Finding: f, AcceptedBy: rules[i]})
	}
	r.AcceptNotes = legacyNotes(rules)
	r.Findings = kept
	for i, u := range used {
		if !u && firstMatchAny(rules[i], r.Accepted) {
			u = true // shadowed by an earlier rule: it still matches something
		}
		if !u {
			r.StaleAccepts = append(r.StaleAccepts, rules[i])
		}
	}
}

func firstMatch(rules []AcceptRule, f Finding) int {
	for i, rule := range rules {
		if rule.Matches(f) {
			return i
		}
	}
	return -1
}

func firstMatchAny(rule AcceptRule, accepted []AcceptedFinding) bool {
	for _, a := range accepted {
		if rule.Matches(a.Finding) {
			return true
		}
	}
	return false
}

// WriteBaseline writes a baseline that accepts every finding of rep: the file rules that
// accepted some (kept as written, with their date and reason), then one ID:SUBJECT line per
// finding not yet accepted, dated today, with reason. Findings accepted by --ignore are left
// to the flag; stale rules are dropped.
func WriteBaseline(w io.Writer, rep *Report, today time.Time, reason string) error {
	if reason == "" {
		reason = "no reason given (written by --write-baseline)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# mvpctl preflight baseline: accepted risks, one a line: ID[:SUBJECT]  # YYYY-MM-DD reason\n")
	fmt.Fprintf(&b, "# %s (written by `mvpctl preflight --write-baseline`).\n", strings.TrimPrefix(rep.CheckedLine(), "Checked: "))
	kept := map[string]bool{}
	for _, a := range rep.Accepted {
		rule := a.AcceptedBy
		if rule.Source == SourceIgnoreFlag || kept[rule.Source] {
			continue
		}
		kept[rule.Source] = true
		fmt.Fprintf(&b, "%s%s\n", rule.Key(), comment(rule.Date, rule.Reason))
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if seen[f.Key()] {
			continue
		}
		seen[f.Key()] = true
		fmt.Fprintf(&b, "# %s: %s\n%s%s\n", f.Severity, textsafe.Visible(oneLine(f.Message, 160)), f.Key(), comment(today.Format(time.DateOnly), reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SourceIgnoreFlag is the source of rules given with --ignore.
const SourceIgnoreFlag = "--ignore"

func comment(date, reason string) string {
	c := strings.TrimSpace(date + " " + textsafe.Visible(strings.ReplaceAll(reason, "\n", " ")))
	if c == "" {
		return ""
	}
	return "  # " + c
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
