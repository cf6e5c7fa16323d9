package mvp

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestLastResortNotFound pins the 404 body per version to the source it comes from.
func TestLastResortNotFound(t *testing.T) {
	// k8s.io/apiserver v0.38.0-alpha.2 pkg/util/notfoundhandler/not_found_handler_test.go:51-54:
	// Content-Type application/json and this body (the test trims the newline the encoder adds).
	const alpha2Body = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"404 page not found","reason":"NotFound","code":404}`
	for _, tc := range []struct {
		minor       int
		shape       NotFoundShape
		contentType string
		body        string
		rule        Rule
	}{
		// v0.37.2 not_found_handler.go:64: http.NotFound (net/http: text/plain; charset=utf-8).
		{36, ShapeText, "text/plain; charset=utf-8", "404 page not found\n", RuleNotFoundText},
		{37, ShapeText, "text/plain; charset=utf-8", "404 page not found\n", RuleNotFoundText},
		// v0.38.0-alpha.2 not_found_handler.go:64-77: responsewriters.ErrorNegotiated of a Status.
		{38, ShapeStatus, "application/json", alpha2Body + "\n", RuleNotFoundStatus},
		{39, ShapeStatus, "application/json", alpha2Body + "\n", RuleNotFoundStatus},
	} {
		v := snapshot.Version{Major: 1, Minor: tc.minor}
		got := LastResortNotFound(v)
		if got.Shape != tc.shape || got.ContentType != tc.contentType || got.Body != tc.body || NotFoundRule(v) != tc.rule {
			t.Errorf("1.%d: %+v (rule %s), want %s %q %q (rule %s)", tc.minor, got, NotFoundRule(v), tc.shape, tc.contentType, tc.body, tc.rule)
		}
	}
	if RuleNotFoundText.Versions() != "before 1.38" || RuleNotFoundStatus.Versions() != "1.38+" {
		t.Errorf("versions: %q, %q", RuleNotFoundText.Versions(), RuleNotFoundStatus.Versions())
	}
}

// TestRemovedAPIs pins the removal of lifecycle-removed kinds and its one-release escape to
// k8s.io/apiserver pkg/server/deleted_kinds.go:150-171 (the same in v0.37.2 and v0.38.0-alpha.2)
// and resource.k8s.io/v1beta1's removal to k8s.io/api v0.38.0-alpha.2
// resource/v1beta1/zz_generated.prerelease-lifecycle.go:39,75,111,147 (Removed 1.38).
func TestRemovedAPIs(t *testing.T) {
	v := func(minor int) snapshot.Version { return snapshot.Version{Major: 1, Minor: minor} }
	for _, tc := range []struct {
		minor, removed int
		escape, want   bool
	}{
		{37, 38, false, true}, // :152-154 removal after the current version: served
		{38, 38, false, false},
		{38, 38, true, true},   // :167-169 the escape: one more release
		{39, 38, true, false},  // :155-157 removed before the current version: whatever the env
		{39, 38, false, false}, //
	} {
		if got := ServesRemovedKind(v(tc.minor), tc.removed, tc.escape); got != tc.want {
			t.Errorf("1.%d, removed in 1.%d, escape %t: serves %t, want %t", tc.minor, tc.removed, tc.escape, got, tc.want)
		}
	}
	if m, ok := RemovedGroupVersion("resource.k8s.io/v1beta1"); !ok || m != 38 {
		t.Errorf("resource.k8s.io/v1beta1 removed in %d (%t), want 38", m, ok)
	}
	if got := RemovedGroupVersions(v(38)); len(got) != 1 || got[0] != "resource.k8s.io/v1beta1" {
		t.Errorf("1.38 removes %v", got)
	}
	if got := RemovedGroupVersions(v(37)); len(got) != 0 {
		t.Errorf("1.37 removes %v", got)
	}
	if notServed, escape := RemovedVersions("resource.k8s.io/v1beta1"); notServed != "1.38+" || escape != "1.38" {
		t.Errorf("versions %q %q", notServed, escape)
	}
	// :115-121: strconv.ParseBool, an unreadable value is a startup error.
	for value, want := range map[string]bool{"true": true, "1": true, "false": false, "0": false} {
		if got, err := ParseServeRemovedAPIs(value); err != nil || got != want {
			t.Errorf("%q: %t %v", value, got, err)
		}
	}
	if _, err := ParseServeRemovedAPIs("yes"); err == nil {
		t.Error(`"yes" read as a bool; kube-apiserver refuses it`)
	}
	want := "move the client to resource.k8s.io/v1; or, for 1.38 only, start every 1.38 kube-apiserver with KUBE_APISERVER_SERVE_REMOVED_APIS_FOR_ONE_RELEASE=true in its environment (the static pod manifest's env): 1.39 drops resource.k8s.io/v1beta1 whatever the environment says"
	if got := RemovedFix("resource.k8s.io/v1beta1", "resource.k8s.io/v1"); got != want {
		t.Errorf("fix:\n%s\nwant\n%s", got, want)
	}
}

// TestDiscoveryV2Only pins v2-only negotiation to k8s.io/apiserver v0.38.0-alpha.2
// pkg/endpoints/discovery/aggregated/negotiation.go:40 (v0.37.2 :43-46 still had v2beta1).
func TestDiscoveryV2Only(t *testing.T) {
	for minor, want := range map[int]bool{32: true, 37: true, 38: false, 39: false} {
		if got := NegotiatesDiscoveryV2Beta1(snapshot.Version{Major: 1, Minor: minor}); got != want {
			t.Errorf("1.%d: negotiates v2beta1 %t, want %t", minor, got, want)
		}
	}
	if RuleDiscoveryV2Only.Versions() != "1.38+" {
		t.Errorf("versions %q", RuleDiscoveryV2Only.Versions())
	}
}
