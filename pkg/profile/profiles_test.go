package profile

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLookup(t *testing.T) {
	// A patch release without a profile of its own uses its minor's: patch releases do not
	// change the peer-proxy code.
	for in, want := range map[string]string{"1.36": "v1.36.3", "v1.37.1": "v1.37.1", "1.35.4": "v1.35.4", "1.36.9": "v1.36.3"} {
		p, err := Lookup(in)
		if err != nil || p.Version.String() != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, p.Version, err, want)
		}
	}
	for _, bad := range []string{"1.38", "1.32.1", "latest"} {
		_, err := Lookup(bad)
		if err == nil {
			t.Errorf("Lookup(%q) should fail", bad)
		} else if bad != "latest" && !strings.Contains(err.Error(), "v1.34.4, v1.35.4, v1.36.3, v1.37.1") {
			t.Errorf("error should list the profiles there are: %v", err)
		}
	}
}

// ReplaceEmbedded swaps the profiles every lookup reads, and restore puts the previous ones back.
func TestReplaceEmbedded(t *testing.T) {
	restore := ReplaceEmbedded(fstest.MapFS{"profiles/v1.39.0.yaml": profileFile("v1.39.0", "v1/pods")})
	vs, err := Versions()
	if err != nil || strings.Join(vs, ",") != "v1.39.0" {
		t.Errorf("replaced: versions %v, %v; want v1.39.0", vs, err)
	}
	if _, err := Lookup("1.36"); err == nil {
		t.Error("replaced: Lookup(1.36) found a profile the replacement does not hold")
	}
	restore()
	vs, err = Versions()
	if err != nil || strings.Join(vs, ",") != "v1.34.4,v1.35.4,v1.36.3,v1.37.1" {
		t.Errorf("restored: versions %v, %v; want the fixture's", vs, err)
	}
	if p, err := Lookup("1.36"); err != nil || p.Version.String() != "v1.36.3" {
		t.Errorf("restored: Lookup(1.36) = %v, %v", p.Version, err)
	}
}
