package mvp

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestAssumptions(t *testing.T) {
	newer := fmt.Sprintf("v1.%d.0", NewestKnownMinor+2)
	known := fmt.Sprintf("v1.%d.2", NewestObservedMinor)
	provisional := fmt.Sprintf("v1.%d.0", NewestObservedMinor+1)
	because := fmt.Sprintf("rules provisional: the 1.%d rules are read from the published k8s.io/apiserver and k8s.io/api 1.%d prerelease modules, not observed on a kube-apiserver", NewestKnownMinor, NewestKnownMinor)
	line := func(name, version string) string {
		return fmt.Sprintf("server %s runs %s, newer than mvpctl's newest known release 1.%d: routing assumes 1.%d's rules (%s)",
			name, version, NewestKnownMinor, NewestKnownMinor, because)
	}
	for _, tc := range []struct {
		name     string
		versions []string
		want     []string
	}{
		{"all known", []string{"v1.36.3", known}, nil},
		{"one newer", []string{known, newer}, []string{line("kas-b", newer)}},
		{"newer with a build suffix", []string{newer + "-gke.1"}, []string{line("kas-a", newer+"-gke.1")}},
		{"unread server, version unknown", []string{"", known}, nil},
		{"known, but provisional", []string{known, provisional}, []string{fmt.Sprintf("server kas-b runs %s: %s", provisional, because)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := snapshot.New()
			for i, v := range tc.versions {
				snap.Servers = append(snap.Servers, snapshot.Server{Name: fmt.Sprintf("kas-%c", 'a'+i), Version: v, Reachable: v != ""})
			}
			if err := snap.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := Assumptions(snap); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Assumptions = %q\nwant %q", got, tc.want)
			}
		})
	}
}
