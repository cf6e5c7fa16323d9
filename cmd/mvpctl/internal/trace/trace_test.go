package trace

import (
	"strings"
	"testing"
)

// TestCleanLines: each line klog writes is cleaned (secret shapes redacted, control
// characters escaped), klog's tab indentation and the newlines kept.
func TestCleanLines(t *testing.T) {
	var b strings.Builder
	in := []byte("I1127 a SECRET_ENV=hunter2-plugin-secret\n\tnext \x1b[2J\n")
	n, err := cleanLines{&b}.Write(in)
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	got := b.String()
	if strings.Contains(got, "hunter2") || strings.Contains(got, "\x1b") || !strings.HasPrefix(got, "I1127 a SECRET_ENV=[REDACTED]\n\tnext ") || !strings.HasSuffix(got, "\n") {
		t.Errorf("wrote %q", got)
	}
}
