package main

import "testing"

// TestBuildVersionTestBinary: a test binary carries build info; whatever it says,
// buildVersion must return non-empty values.
func TestBuildVersionTestBinary(t *testing.T) {
	v, c, d := buildVersion()
	if v == "" || c == "" || d == "" {
		t.Fatalf("buildVersion() = %q, %q, %q; want no empty field", v, c, d)
	}
}
