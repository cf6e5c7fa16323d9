package mvp

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The FailedDiscoveryCheck messages v1.36.3 and v1.37.1 wrote (TestAggregatedAPI,
// TestAggregatedBackendErrors; docs/behaviour.md §16).
const (
	msgRefused   = `failing or missing response from https://localhost:41815/apis/x.io/v1: Get "https://localhost:41815/apis/x.io/v1": dial tcp 127.0.0.1:41815: connect: connection refused`
	msg500       = `failing or missing response from https://localhost:42981/apis/x.io/v1: bad status from https://localhost:42981/apis/x.io/v1: 500`
	msg503       = `failing or missing response from https://localhost:43271/apis/x.io/v1: bad status from https://localhost:43271/apis/x.io/v1: 503`
	msgTimeout   = `failing or missing response from https://localhost:41815/apis/x.io/v1: Get "https://localhost:41815/apis/x.io/v1": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
	msgDeadline  = `failing or missing response from https://localhost:46275/apis/x.io/v1: Get "https://localhost:46275/apis/x.io/v1": context deadline exceeded`
	msgCanceled  = `failing or missing response from https://localhost:41815/apis/x.io/v1: Get "https://localhost:41815/apis/x.io/v1": net/http: request canceled (Client.Timeout exceeded while awaiting headers)`
	msgGuard     = `timed out waiting for https://localhost:41815/apis/x.io/v1`
	msgTLSFailed = `failing or missing response from https://localhost:41815/apis/x.io/v1: Get "https://localhost:41815/apis/x.io/v1": tls: failed to verify certificate`
)

func failedCheck(reason, message string) snapshot.APIService {
	return snapshot.APIService{Name: "v1.x.io", Group: "x.io", Version: "v1",
		Service:   &snapshot.ServiceReference{Namespace: "kube-system", Name: "x", Port: 443},
		Available: &snapshot.APIServiceCondition{Status: "False", Reason: reason, Message: message}}
}

func TestDiscoveryCheckFailure(t *testing.T) {
	for _, tc := range []struct {
		message string
		want    DiscoveryCheckFailure
		code    string
		// cause and check are what explain and preflight say (DiscoveryCheckCause, the first
		// of APIServiceChecks).
		cause, check string
	}{
		{msgRefused, CheckRefused, "", "connection was refused", "check that the backend behind kube-system/x:443 answers"},
		{msg500, CheckBadStatus, "500", "answered HTTP 500", "answers its discovery (GET /apis/x.io/v1) with HTTP 500: read its logs"},
		{msg503, CheckBadStatus, "503", "answered HTTP 503", "with HTTP 503"},
		{msgTimeout, CheckTimeout, "", "within its 5 s timeout", "takes longer than 5 s to answer GET /apis/x.io/v1"},
		{msgCanceled, CheckTimeout, "", "within its 5 s timeout", "takes longer than 5 s"},
		{msgDeadline, CheckTimeout, "", "within its 5 s timeout", "takes longer than 5 s"},
		{msgGuard, CheckTimeout, "", "within its 5 s timeout", "takes longer than 5 s"},
		{msgTLSFailed, CheckOther, "", "", "check that the backend behind kube-system/x:443 answers"},
	} {
		f, code := DiscoveryCheckFailureOf(tc.message)
		if f != tc.want || code != tc.code {
			t.Errorf("%s: %s %q, want %s %q", tc.message, f, code, tc.want, tc.code)
		}
		a := failedCheck("FailedDiscoveryCheck", tc.message)
		if cause := DiscoveryCheckCause(a); (tc.cause == "") != (cause == "") || !strings.Contains(cause, tc.cause) {
			t.Errorf("%s: cause %q, want one containing %q", tc.message, cause, tc.cause)
		}
		if checks := APIServiceChecks(a); len(checks) != 3 || !strings.Contains(checks[0], tc.check) {
			t.Errorf("%s: checks %q, want the first to contain %q", tc.message, checks, tc.check)
		}
	}
}

// Only FailedDiscoveryCheck has a cause in its message; the other reasons say it themselves.
func TestDiscoveryCheckCauseOtherReasons(t *testing.T) {
	for _, a := range []snapshot.APIService{
		failedCheck("ServiceNotFound", `service/x in "kube-system" is not present`),
		failedCheck("EndpointsNotFound", msg500), // the message is not read for another reason
		{Name: "v1.x.io", Group: "x.io", Version: "v1"},
	} {
		if c := DiscoveryCheckCause(a); c != "" {
			t.Errorf("%+v: cause %q, want none", a.Available, c)
		}
	}
}

func TestBackendAnswerNote(t *testing.T) {
	a := failedCheck("Passed", "all checks passed")
	a.Available.Status = "True"
	n := BackendAnswerNote(a)
	for _, want := range []string{"x.io/v1 is the backend's own, passed through unchanged", "GET /apis/x.io/v1 answers 2xx within 5 s", "kube-system/x:443", "kubectl -n kube-system logs"} {
		if !strings.Contains(n, want) {
			t.Errorf("%q lacks %q", n, want)
		}
	}
}
