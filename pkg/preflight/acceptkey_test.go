package preflight

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestBaselineKeysRoundTrip: --write-baseline's rules, read back, accept each finding they
// were written for and no other: subjects that hold glob characters, a comment character,
// backslashes, spaces, control characters and bytes that are not UTF-8.
func TestBaselineKeysRoundTrip(t *testing.T) {
	subjects := []string{"k*", "kz", "k#1", "k", "k?x", "kax", `back\slash`, `back\\slash`, "a b", "esc\x1b]0;pwned\x07",
		"nul\x00byte", "bad\xffutf8", "c1\u009bcontrol", "über", "line\u2028sep", "rtl\u202eevil", "kas-b</td><script>", "\\x41", "A"}
	var findings []Finding
	for _, s := range subjects {
		findings = append(findings, Finding{Check: "MVP031", Severity: Warning, Subject: s, Message: "message of " + s})
	}
	var b bytes.Buffer
	if err := WriteBaseline(&b, &Report{Findings: findings}, time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), "reason \x1b[2J"); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x00\x1b\x07\u009b\u202e") || !strings.Contains(b.String(), `reason \x1b[2J`) {
		t.Errorf("the baseline holds raw control characters:\n%q", b.String())
	}
	rules, err := ParseAcceptFile(strings.NewReader(b.String()), "baseline")
	if err != nil {
		t.Fatalf("reading the written baseline: %v\n%s", err, b.String())
	}
	if len(rules) != len(subjects) {
		t.Fatalf("%d rules read back for %d findings:\n%s", len(rules), len(subjects), b.String())
	}
	for i, r := range rules {
		for j, f := range findings {
			if got := r.Matches(f); got != (i == j) {
				t.Errorf("rule %s (written for %q) matches %q: %v", r.Key(), subjects[i], f.Subject, got)
			}
		}
		if r.Key() != findings[i].Key() {
			t.Errorf("rule %d reads back as %q, written %q", i, r.Key(), findings[i].Key())
		}
	}
}

func TestAcceptRuleText(t *testing.T) {
	for _, tc := range []struct {
		rule, subject string
		want          bool
	}{
		{`MVP031:k\*`, "k*", true},
		{`MVP031:k\*`, "kz", false},
		{`MVP031:k*`, "kz", true}, // a glob a person wrote
		{`MVP031:k\#1`, "k#1", true},
		{`MVP031:a\x20b`, "a b", true},
		{`MVP031:\\`, `\`, true},
		{`MVP031:\u00fc`, "ü", true},
	} {
		r, err := ParseAcceptRule(tc.rule, "t")
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		if got := r.Matches(Finding{Check: "MVP031", Subject: tc.subject}); got != tc.want {
			t.Errorf("%s matches %q = %v, want %v", tc.rule, tc.subject, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"MVP031:k\x00":    `holds the control character '\x00'`,
		"MVP031:k\x1b[2J": `holds the control character '\x1b'`,
		`MVP031:k\q`:      `unknown escape "\\q"`,
		`MVP031:k\`:       `a lone \ at the end`,
	} {
		if _, err := ParseAcceptRule(in, "--ignore"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAcceptRule(%q) = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseAcceptFile(strings.NewReader("MVP031:kas-a\nMVP031:k\x00z  # x\n"), "f"); err == nil || !strings.Contains(err.Error(), "f:2: holds a NUL byte") {
		t.Errorf("a NUL byte in a baseline: %v", err)
	}
	rules, err := ParseAcceptFile(strings.NewReader("MVP031:k\\#1  # 2026-11-27 why\n"), "f")
	if err != nil || len(rules) != 1 || rules[0].Key() != `MVP031:k\#1` || rules[0].Reason != "why" {
		t.Errorf("an escaped # is not a comment: %+v %v", rules, err)
	}
}
