package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExplainWhatIf: explain --step crash:kas-a states the 503 a client of kas-b gets and its
// timeline (the 503 of endpoint resolution, then the 404) in text, table and JSON alike, and
// takes simulate run's steps with the same validation.
func TestExplainWhatIf(t *testing.T) {
	args := []string{"explain", "--snapshot", "../../examples/skew.yaml", "--step", "crash:kas-a", "GET", "/apis/batch/v1/jobs"}
	text, stderr, code := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"What if: crash kas-a",
		"kas-b: 503 Service Unavailable — kas-a serves batch/v1, but does not answer at its address",
		"when the published address of kas-a expires: 503 (no peer address resolves)",
		"at kas-b's next peer-discovery rebuild, which drops kas-a: 404 Not Found",
		"kas-a: not evaluated — down after the steps",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text does not say %q:\n%s", want, text)
		}
	}
	for _, format := range []string{"table", "wide"} {
		table, _, _ := run(t, append(args, "-o", format)...)
		header, _, _ := strings.Cut(table, "\n")
		if !strings.HasSuffix(header, "THEN") || !strings.Contains(table, "503 endpoint-resolution") || !strings.Contains(table, "→ 404 at the next peer-discovery rebuild") {
			t.Errorf("-o %s does not carry the timeline:\n%s", format, table)
		}
	}
	out, _, _ := run(t, append(args, "-o", "json")...)
	var doc struct {
		WhatIf  []string `json:"whatIf"`
		Servers []struct {
			Server   string `json:"server"`
			Status   int    `json:"status"`
			Timeline []struct {
				To string `json:"to"`
			} `json:"timeline"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.WhatIf) != 1 || doc.WhatIf[0] != "crash kas-a" || len(doc.Servers) != 1 || doc.Servers[0].Status != 503 ||
		len(doc.Servers[0].Timeline) != 2 || doc.Servers[0].Timeline[1].To != "not-found" {
		t.Errorf("-o json: %+v", doc)
	}
	// Without --step the same request is proxied: the what-if is what makes the 503.
	plain, _, _ := run(t, "explain", "--snapshot", "../../examples/skew.yaml", "GET", "/apis/batch/v1/jobs")
	if !strings.Contains(plain, "kas-b: proxied to kas-a") || strings.Contains(plain, "What if") {
		t.Errorf("without --step:\n%s", plain)
	}
	// simulate run's validation: an unknown action, a server the snapshot does not have.
	for _, bad := range [][]string{{"--step", "explode:kas-a"}, {"--step", "crash:kas-z"}} {
		if _, stderr, code := run(t, append([]string{"explain", "--snapshot", "../../examples/skew.yaml", "jobs.batch"}, bad...)...); code != ExitError || !strings.Contains(stderr, strings.Split(bad[1], ":")[1]) {
			t.Errorf("explain %v: exit %d: %s", bad, code, stderr)
		}
	}
}
