package auditlog

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestHaveMasksAsXSysCPU: the lazy check on this machine agrees with golang.org/x/sys/cpu,
// which Scan asked at start-up before (only this test links it now).
func TestHaveMasksAsXSysCPU(t *testing.T) {
	if got, want := haveMasks(), cpu.X86.HasAVX2; got != want {
		t.Errorf("haveMasks() = %v, golang.org/x/sys/cpu says HasAVX2 = %v", got, want)
	}
	t.Logf("AVX2: %v", cpu.X86.HasAVX2)
}
