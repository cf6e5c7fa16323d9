package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

const (
	ctJSON = "application/json"
	ctText = "text/plain; charset=utf-8"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		obs  Observation
		want Class
	}{
		{"200 list", Observation{StatusCode: 200, ContentType: ctJSON, Body: []byte(`{"kind":"JobList","apiVersion":"batch/v1","items":[]}`)}, ClassServed},
		{"201 created", Observation{StatusCode: 201, ContentType: ctJSON, Body: []byte(`{"kind":"Job"}`)}, ClassServed},
		{"304 not modified", Observation{StatusCode: 304, ContentType: "", Body: nil}, ClassServed},
		{"404 text unknown group", Observation{StatusCode: 404, ContentType: ctText, Body: []byte("404 page not found\n")}, ClassUnknownResource},
		{"404 text no content type", Observation{StatusCode: 404, ContentType: "", Body: []byte("404 page not found")}, ClassUnknownResource},
		{"404 Status empty details", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`)}, ClassUnknownResource},
		{"404 Status no details", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","code":404}`)}, ClassUnknownResource},
		{"404 Status missing object", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"jobs.batch \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"batch","kind":"jobs"},"code":404}`)}, ClassServed},
		{"404 other text", Observation{StatusCode: 404, ContentType: ctText, Body: []byte("nothing here")}, ClassError},
		{"404 json not a Status", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte(`{"kind":"Job"}`)}, ClassError},
		{"404 text body on json content type", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte("404 page not found")}, ClassError},
		{"401", Observation{StatusCode: 401, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"Unauthorized","code":401}`)}, ClassDenied},
		{"403", Observation{StatusCode: 403, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"Forbidden","details":{"group":"batch","kind":"jobs"},"code":403}`)}, ClassDenied},
		{"409 AlreadyExists", Observation{StatusCode: 409, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"AlreadyExists","details":{"name":"x","group":"batch","kind":"jobs"},"code":409}`)}, ClassServed},
		{"422 Invalid", Observation{StatusCode: 422, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"Invalid","code":422}`)}, ClassServed},
		{"410 Expired", Observation{StatusCode: 410, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"Expired","code":410}`)}, ClassServed},
		{"503 endpoint", Observation{StatusCode: 503, ContentType: ctJSON, Body: []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Error getting ip and port info of the remote server while proxying","reason":"ServiceUnavailable","code":503}`)}, ClassUnavailableEndpoint},
		{"503 transport", Observation{StatusCode: 503, ContentType: ctText, Body: []byte("error trying to reach service: dial tcp 127.0.0.1:17443: connect: connection refused")}, ClassUnavailableTransport},
		{"503 storage version", Observation{StatusCode: 503, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"ServiceUnavailable","message":"wait for storage version registration to complete for resource: batch/jobs","code":503}`)}, ClassError},
		{"503 empty", Observation{StatusCode: 503, ContentType: ctText, Body: nil}, ClassError},
		{"503 aggregator: APIService not available", Observation{StatusCode: 503, ContentType: ctText, Body: []byte("service unavailable\n")}, ClassAggregatorUnavailable},
		{"503 service unavailable as a Status", Observation{StatusCode: 503, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"ServiceUnavailable","message":"service unavailable","code":503}`)}, ClassError},
		{"503 text with more", Observation{StatusCode: 503, ContentType: ctText, Body: []byte("service unavailable, try later")}, ClassError},
		{"429", Observation{StatusCode: 429, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"TooManyRequests","code":429}`)}, ClassError},
		{"500", Observation{StatusCode: 500, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"InternalError","code":500}`)}, ClassError},
		{"400 no details", Observation{StatusCode: 400, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"BadRequest","code":400}`)}, ClassError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.obs)
			if got.Class != tc.want {
				t.Errorf("Classify = %s (%s), want %s", got.Class, got.Why, tc.want)
			}
			if got.StatusCode != tc.obs.StatusCode || got.Why == "" {
				t.Errorf("Classify = %+v: want StatusCode %d and a Why", got, tc.obs.StatusCode)
			}
		})
	}
}

func TestCombine(t *testing.T) {
	c := func(class Class) Classification { return Classification{Class: class, Why: "test"} }
	for _, tc := range []struct {
		normal, local Class
		want          mvp.Outcome
		flavour       mvp.Unavailable503
	}{
		{ClassServed, ClassServed, mvp.Local, ""},
		{ClassServed, ClassUnknownResource, mvp.Proxied, ""},
		{ClassDenied, ClassUnknownResource, mvp.Proxied, ""}, // the peer denied
		{ClassError, ClassUnknownResource, mvp.Proxied, ""},
		{ClassUnknownResource, ClassUnknownResource, mvp.NotFound, ""},
		{ClassUnavailableEndpoint, ClassUnknownResource, mvp.Unavailable, mvp.EndpointResolution},
		{ClassUnavailableTransport, ClassUnknownResource, mvp.Unavailable, mvp.Transport},
		{ClassUnavailableTransport, ClassUnavailableTransport, mvp.Local, ""}, // e.g. an aggregated API's backend is down
		{ClassDenied, ClassDenied, mvp.Local, ""},
		{ClassError, ClassError, mvp.Local, ""},
		{ClassUnknownResource, ClassServed, mvp.Unknown, ""},
		{ClassServed, ClassDenied, mvp.Unknown, ""},
	} {
		got := Combine(c(tc.normal), c(tc.local))
		if got.Outcome != tc.want || got.Unavailable != tc.flavour || got.Why == "" {
			t.Errorf("Combine(%s, %s) = %s/%s (%s), want %s/%s", tc.normal, tc.local, got.Outcome, got.Unavailable, got.Why, tc.want, tc.flavour)
		}
	}
}

// capture is the fixture format written by test/e2e's TestSmoke (see testdata/README.md).
type capture struct {
	Note        string `json:"note"`
	Version     string `json:"version"`
	Server      string `json:"server"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	ForcedLocal bool   `json:"forcedLocal"`
	StatusCode  int    `json:"statusCode"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

func loadCapture(t *testing.T, name string) capture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c capture
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func classifyCapture(t *testing.T, name string) Classification {
	c := loadCapture(t, name)
	return Classify(Observation{StatusCode: c.StatusCode, ContentType: c.ContentType, Body: []byte(c.Body)})
}

// Responses captured from real v1.36.3 servers: A serves everything, B has batch/v1
// turned off.
var captured = map[string]Class{
	"v1.36.3-a-list-jobs":                                    ClassServed,
	"v1.36.3-a-list-jobs-forced-local":                       ClassServed,
	"v1.36.3-b-list-jobs":                                    ClassServed, // proxied to A
	"v1.36.3-b-list-jobs-forced-local":                       ClassUnknownResource,
	"v1.36.3-b-unknown-group":                                ClassUnknownResource,
	"v1.36.3-b-unknown-group-forced-local":                   ClassUnknownResource,
	"v1.36.3-b-get-batch-v1-discovery":                       ClassUnknownResource,
	"v1.36.3-a-unknown-resource":                             ClassUnknownResource,
	"v1.36.3-a-unknown-version":                              ClassUnknownResource,
	"v1.36.3-a-missing-job":                                  ClassServed,
	"v1.36.3-b-missing-job":                                  ClassServed,
	"v1.36.3-b-missing-job-forced-local":                     ClassUnknownResource,
	"v1.36.3-b-create-job":                                   ClassServed,
	"v1.36.3-b-create-job-again":                             ClassServed,
	"v1.36.3-b-get-job-status":                               ClassServed,
	"v1.36.3-b-get-job-status-forced-local":                  ClassUnknownResource,
	"v1.36.3-b-watch-jobs":                                   ClassServed,
	"v1.36.3-b-watch-jobs-forced-local":                      ClassUnknownResource,
	"v1.36.3-b-list-jobs-unprivileged":                       ClassDenied,
	"v1.36.3-b-list-jobs-peer-killed":                        ClassUnavailableTransport,
	"v1.36.3-b-list-jobs-peer-killed-forced-local":           ClassUnknownResource,
	"v1.36.3-b-list-jobs-peer-endpoint-expired":              ClassUnavailableEndpoint,
	"v1.36.3-b-list-jobs-peer-endpoint-expired-forced-local": ClassUnknownResource,
	"v1.36.3-b-list-jobs-peer-stopped":                       ClassUnknownResource,
	"v1.36.3-b-list-jobs-peer-stopped-forced-local":          ClassUnknownResource,
}

func TestClassifyCaptured(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		seen[name] = true
		want, ok := captured[name]
		if !ok {
			t.Errorf("testdata/%s.json has no expected class in the table", name)
			continue
		}
		if got := classifyCapture(t, name); got.Class != want {
			t.Errorf("%s: Classify = %s (%s), want %s", name, got.Class, got.Why, want)
		}
	}
	for name := range captured {
		if !seen[name] {
			t.Errorf("testdata/%s.json is missing", name)
		}
	}
}

func TestCombineCaptured(t *testing.T) {
	for _, tc := range []struct {
		name    string
		want    mvp.Outcome
		flavour mvp.Unavailable503
	}{
		{"v1.36.3-a-list-jobs", mvp.Local, ""},
		{"v1.36.3-b-list-jobs", mvp.Proxied, ""},
		{"v1.36.3-b-missing-job", mvp.Proxied, ""},
		{"v1.36.3-b-get-job-status", mvp.Proxied, ""},
		{"v1.36.3-b-watch-jobs", mvp.Proxied, ""},
		{"v1.36.3-b-unknown-group", mvp.NotFound, ""},
		{"v1.36.3-b-list-jobs-peer-killed", mvp.Unavailable, mvp.Transport},
		{"v1.36.3-b-list-jobs-peer-endpoint-expired", mvp.Unavailable, mvp.EndpointResolution},
		{"v1.36.3-b-list-jobs-peer-stopped", mvp.NotFound, ""},
	} {
		got := Combine(classifyCapture(t, tc.name), classifyCapture(t, tc.name+"-forced-local"))
		if got.Outcome != tc.want || got.Unavailable != tc.flavour {
			t.Errorf("%s: Combine = %s/%s (%s), want %s/%s", tc.name, got.Outcome, got.Unavailable, got.Why, tc.want, tc.flavour)
		}
	}
}

// TestClassifyCut: a body cut at the bound is classified by the status where the status
// decides (2xx, 3xx, 401, 403); any other cut answer is an error whose shape was not read, even
// when what was read looks like one of the apiserver's own.
func TestClassifyCut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obs      Observation
		want     Class
		shapeCut bool
	}{
		{"200 list", Observation{StatusCode: 200, ContentType: ctJSON, Body: []byte(`{"kind":"JobList","items":[{"metadata":`)}, ClassServed, false},
		{"403", Observation{StatusCode: 403, ContentType: ctJSON, Body: []byte(`{"kind":"Status"`)}, ClassDenied, false},
		{"404 last-resort text", Observation{StatusCode: 404, ContentType: ctText, Body: []byte("404 page not found   ")}, ClassError, true},
		{"404 Status empty details", Observation{StatusCode: 404, ContentType: ctJSON, Body: []byte(`{"kind":"Status","message":"the server could not find the requested resource","reason":"NotFound","code":404}  `)}, ClassError, true},
		{"503 transport", Observation{StatusCode: 503, ContentType: ctText, Body: []byte("error trying to reach service: dial tcp 127.0.0.1:17443: connect")}, ClassError, true},
		{"422 Invalid", Observation{StatusCode: 422, ContentType: ctJSON, Body: []byte(`{"kind":"Status","reason":"Invalid","code":422}   `)}, ClassError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := Classify(tc.obs)
			tc.obs.Truncated = true
			got := Classify(tc.obs)
			if got.Class != tc.want || got.ShapeCut != tc.shapeCut || !got.Truncated || whole.Truncated || whole.ShapeCut {
				t.Errorf("cut: %+v; whole: %+v; want class %s, shapeCut %t", got, whole, tc.want, tc.shapeCut)
			}
			if tc.shapeCut && (!strings.Contains(got.Why, "no answer of the apiserver's own is that long") || got.Reason != "" || got.Message != "") {
				t.Errorf("why %q, reason %q, message %q", got.Why, got.Reason, got.Message)
			}
		})
	}
}
